package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The gateway's log: {@code logging: {format: text|json, level: info, loggers: {org.eclipse.jetty: warn}}}.
 * The core only holds these settings; the {@code sluice} command applies them to its logging backend.
 *
 * @param format one line of text per event (default), or one JSON object per line
 * @param level the least severe level logged (default {@code info})
 * @param loggers levels for loggers by name (a name covers the loggers under it), in declared order
 * @param access the access log ({@code logging.access}), when configured
 */
public record LoggingConfig(Format format, Level level, Map<String, Level> loggers, Optional<AccessLog> access) {

    public LoggingConfig {
        requireNonNull(format, "format");
        requireNonNull(level, "level");
        requireNonNull(access, "access");
        loggers = Collections.unmodifiableMap(new LinkedHashMap<>(loggers));
    }

    /** Without an access log. */
    public LoggingConfig(Format format, Level level, Map<String, Level> loggers) {
        this(format, level, loggers, Optional.empty());
    }

    /**
     * One line per request: {@code logging: {access: {format: json|combined, to: stdout|stderr|PATH,
     * queue: 8192}}}. Written off the request path by one thread; when it falls behind by {@code
     * queue} lines, further lines are dropped and counted.
     *
     * @param combined the Apache/nginx combined format instead of one JSON object per line
     * @param to {@code stdout}, {@code stderr}, or a file path (appended to)
     * @param queue the most lines waiting to be written
     */
    public record AccessLog(boolean combined, String to, int queue) {
        public AccessLog {
            requireNonNull(to, "to");
        }
    }

    public static LoggingConfig defaults() {
        return new LoggingConfig(Format.TEXT, Level.INFO, Map.of());
    }

    /** How a log event is written. */
    public enum Format {
        TEXT,
        JSON;

        /** The configuration spelling: {@code text}, {@code json}. */
        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Optional<Format> fromKey(String key) {
            for (Format format : values()) {
                if (format.key().equals(key)) {
                    return Optional.of(format);
                }
            }
            return Optional.empty();
        }
    }

    /** Log levels, least severe first. */
    public enum Level {
        TRACE,
        DEBUG,
        INFO,
        WARN,
        ERROR;

        /** The configuration spelling: {@code trace} ... {@code error}. */
        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Optional<Level> fromKey(String key) {
            for (Level level : values()) {
                if (level.key().equals(key)) {
                    return Optional.of(level);
                }
            }
            return Optional.empty();
        }
    }
}
