package dev.sluice.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.Encoder;
import dev.sluice.config.LoggingConfig;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * Sets up logback, the SLF4J backend of the {@code sluice} command, from a {@link LoggingConfig}: in
 * code, not from an XML file, so nothing is found by reflection (native-image friendly). Every
 * event goes to one stream (the command's standard error; its standard output carries the
 * command's own lines), as one line of text or one JSON object per line.
 */
final class LogBackend {

    /**
     * Jetty, Netty and Reactor Netty log at {@code warn} and above (leak reports included) unless
     * {@code loggers:} names them: their {@code info} lines are start-up chatter.
     */
    static final List<String> LIBRARIES = List.of("org.eclipse.jetty", "io.netty", "reactor");

    /** A timestamp with its offset, the level, the thread, the logger, the message; stack traces follow. */
    static final String TEXT_PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{36} - %msg%n";

    private LogBackend() {}

    /**
     * Replaces logback's whole configuration: one appender on {@code target} (never closed by
     * logback) and the levels of {@code config}.
     *
     * @throws IllegalStateException when SLF4J is not bound to logback
     */
    static void configure(LoggingConfig config, OutputStream target) {
        configure(context(), config, target);
    }

    /** As {@link #configure(LoggingConfig, OutputStream)}, on a given context (logback's start-up hands one). */
    static void configure(LoggerContext context, LoggingConfig config, OutputStream target) {
        context.reset();
        OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
        appender.setContext(context);
        appender.setName("sluice");
        appender.setEncoder(encoder(config.format(), context));
        appender.setOutputStream(new Unclosed(target));
        appender.setImmediateFlush(true);
        appender.start();
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(level(config.level()));
        root.addAppender(appender);
        Level libraries = level(
                config.level().compareTo(LoggingConfig.Level.WARN) > 0 ? config.level() : LoggingConfig.Level.WARN);
        for (String library : LIBRARIES) {
            context.getLogger(library).setLevel(libraries);
        }
        for (Map.Entry<String, LoggingConfig.Level> logger : config.loggers().entrySet()) {
            context.getLogger(logger.getKey()).setLevel(level(logger.getValue()));
        }
    }

    private static LoggerContext context() {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (factory instanceof LoggerContext context) {
            return context;
        }
        throw new IllegalStateException(
                "logging: SLF4J is bound to " + factory.getClass().getName() + " (expected: logback)");
    }

    private static Encoder<ILoggingEvent> encoder(LoggingConfig.Format format, LoggerContext context) {
        Encoder<ILoggingEvent> encoder = switch (format) {
            case TEXT -> {
                PatternLayoutEncoder text = new PatternLayoutEncoder();
                text.setPattern(TEXT_PATTERN);
                yield text;
            }
            case JSON -> {
                JsonEncoder json = new JsonEncoder();
                json.setWithSequenceNumber(false);
                json.setWithNanoseconds(false);
                json.setWithContext(false);
                json.setWithArguments(false);
                json.setWithMessage(false); // the formatted message says it, arguments filled in
                json.setWithFormattedMessage(true);
                yield json;
            }
        };
        encoder.setContext(context);
        encoder.start();
        return encoder;
    }

    static Level level(LoggingConfig.Level level) {
        return switch (level) {
            case TRACE -> Level.TRACE;
            case DEBUG -> Level.DEBUG;
            case INFO -> Level.INFO;
            case WARN -> Level.WARN;
            case ERROR -> Level.ERROR;
        };
    }

    /** The target, flushed but never closed when logback stops the appender (it may be System.err). */
    private static final class Unclosed extends FilterOutputStream {
        Unclosed(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}
