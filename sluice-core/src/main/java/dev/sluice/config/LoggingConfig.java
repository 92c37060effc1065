package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
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
     * One line per request: {@code logging: {access: {format: json|combined|TEMPLATE, to:
     * stdout|stderr|PATH, queue: 8192}}}. Written off the request path by one thread; when it falls
     * behind by {@code queue} lines, further lines are dropped and counted.
     *
     * @param format {@code json} (one JSON object per line, the default), {@code combined} (Apache's
     *     combined format), or a template of {@link #FIELDS} in braces, such as {@code "{time}
     *     {status} {method} {path} {duration_ms}ms"}
     * @param to {@code stdout}, {@code stderr}, or a file path (appended to)
     * @param queue the most lines waiting to be written
     */
    public record AccessLog(String format, String to, int queue) {

        /** The fields of a JSON line, in its order: the names a template may use. */
        public static final List<String> FIELDS = List.of(
                "time",
                "request_id",
                "client",
                "method",
                "path",
                "route",
                "status",
                "duration_ms",
                "outcome",
                "bytes_in",
                "bytes_out",
                "upstream_ms",
                "trace_id",
                "refused_by");

        public AccessLog {
            requireNonNull(format, "format");
            requireNonNull(to, "to");
        }

        /** Apache's combined format. */
        public boolean combined() {
            return format.equals("combined");
        }

        /** A template of fields (neither {@code json} nor {@code combined}). */
        public boolean template() {
            return !format.equals("json") && !combined();
        }

        /** One piece of a template: a literal text, or the name of a field. */
        public record Piece(String text, boolean field) {}

        /**
         * A template's pieces, in order; {@code {{} and {@code }}} are a literal brace.
         *
         * @throws IllegalArgumentException naming what is wrong: an unknown field, an unclosed brace
         */
        public static List<Piece> pieces(String template) {
            List<Piece> pieces = new ArrayList<>();
            StringBuilder literal = new StringBuilder();
            int i = 0;
            while (i < template.length()) {
                char c = template.charAt(i);
                if ((c == '{' || c == '}') && i + 1 < template.length() && template.charAt(i + 1) == c) {
                    literal.append(c);
                    i += 2;
                    continue;
                }
                if (c == '}') {
                    throw new IllegalArgumentException("a '}' without its '{' at " + i + " (write }} for a brace)");
                }
                if (c != '{') {
                    literal.append(c);
                    i++;
                    continue;
                }
                int close = template.indexOf('}', i);
                if (close < 0) {
                    throw new IllegalArgumentException("a '{' without its '}' at " + i + " (write {{ for a brace)");
                }
                String name = template.substring(i + 1, close);
                if (!FIELDS.contains(name)) {
                    throw new IllegalArgumentException(
                            "'{" + name + "}' is not a field (expected: one of " + String.join(", ", FIELDS) + ")");
                }
                if (!literal.isEmpty()) {
                    pieces.add(new Piece(literal.toString(), false));
                    literal.setLength(0);
                }
                pieces.add(new Piece(name, true));
                i = close + 1;
            }
            if (!literal.isEmpty()) {
                pieces.add(new Piece(literal.toString(), false));
            }
            return List.copyOf(pieces);
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
