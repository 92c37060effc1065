package dev.sluice.config;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Binds {@code logging:}: the format, levels by logger, and the access log. */
final class LoggingBinder {

    private LoggingBinder() {}

    /** @param base the directory a relative access log file is resolved against: the configuration file's */
    static LoggingConfig logging(Mapping root, Path base) {
        LoggingConfig d = LoggingConfig.defaults();
        Optional<Mapping> section = root.mapping("logging", "a mapping with format, level and loggers");
        if (section.isEmpty()) {
            return d;
        }
        Mapping m = section.get();
        m.allowOnly("format", "level", "loggers", "access");
        LoggingConfig.Format format = LoggingConfig.Format.fromKey(
                        m.choice("format", d.format().key(), "text", "json"))
                .orElse(d.format());
        LoggingConfig.Level level = level(m, "level", d.level());
        Map<String, LoggingConfig.Level> loggers = new LinkedHashMap<>();
        m.mapping("loggers", "a mapping of logger name to level, such as {org.eclipse.jetty: warn}")
                .ifPresent(l -> {
                    for (String name : l.keys()) {
                        if (!isLoggerName(name)) {
                            l.problem(name, "'" + name + "' (expected: a logger name such as org.eclipse.jetty)");
                        }
                        loggers.put(name, level(l, name, d.level()));
                    }
                });
        Optional<LoggingConfig.AccessLog> access = m.mapping("access", "a mapping with format, to and queue")
                .map(a -> {
                    a.allowOnly("format", "to", "queue");
                    String accessFormat = a.string(
                                    "format", "json, combined, or a template such as \"{time} {status} {path}\"")
                            .orElse("json");
                    if (!accessFormat.equals("json") && !accessFormat.equals("combined")) {
                        try {
                            if (LoggingConfig.AccessLog.pieces(accessFormat).stream()
                                    .noneMatch(LoggingConfig.AccessLog.Piece::field)) {
                                a.problem(
                                        "format",
                                        "'" + accessFormat
                                                + "' (expected: json, combined, or a template naming at least"
                                                + " one field in braces, such as \"{time} {status} {path}\")");
                            }
                        } catch (IllegalArgumentException e) {
                            a.problem("format", e.getMessage());
                        }
                    }
                    String to = a.string("to", "stdout, stderr or a file path").orElse("stdout");
                    if (to.isBlank()) {
                        a.problem("to", "'' (expected: stdout, stderr or a file path)");
                    }
                    int queue = a.integer("queue", 8192, 16, 1_000_000, "a whole number from 16 to 1000000");
                    if (!to.isBlank() && !to.equals("stdout") && !to.equals("stderr")) {
                        to = base.resolve(to).toString(); // as certificates and key files are
                    }
                    return new LoggingConfig.AccessLog(accessFormat, to, queue);
                });
        return new LoggingConfig(format, level, loggers, access);
    }

    private static LoggingConfig.Level level(Mapping m, String key, LoggingConfig.Level defaultLevel) {
        String chosen = m.choice(key, defaultLevel.key(), "trace", "debug", "info", "warn", "error");
        return LoggingConfig.Level.fromKey(chosen).orElse(defaultLevel);
    }

    /** Dot-separated Java identifiers, as logger names are (class and package names). */
    private static boolean isLoggerName(String name) {
        for (String part : name.split("\\.", -1)) {
            if (part.isEmpty() || !Character.isJavaIdentifierStart(part.charAt(0))) {
                return false;
            }
            for (int i = 1; i < part.length(); i++) {
                if (!Character.isJavaIdentifierPart(part.charAt(i))) {
                    return false;
                }
            }
        }
        return true;
    }
}
