package dev.sluice.tck;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * Every event logged (through SLF4J to logback) while it is open, in this JVM: what an in-process
 * gateway wrote to its log.
 */
public final class LogCapture implements AutoCloseable {

    private final Logger root;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogCapture(Logger root) {
        this.root = root;
    }

    /** Starts capturing at the root logger; events below the loggers' levels are not seen. */
    public static LogCapture start() {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            throw new IllegalStateException(
                    "SLF4J: bound to " + factory.getClass().getName() + " (expected: logback on the class path)");
        }
        LogCapture capture = new LogCapture(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME));
        capture.appender.setContext(context);
        capture.appender.setName("log-capture");
        capture.appender.start();
        capture.root.addAppender(capture.appender);
        return capture;
    }

    /** The events so far, in order. */
    public List<ILoggingEvent> events() {
        synchronized (appender) { // AppenderBase appends under the appender's lock
            return new ArrayList<>(appender.list);
        }
    }

    /** The events so far whose formatted message contains {@code text}. */
    public List<ILoggingEvent> eventsContaining(String text) {
        return events().stream()
                .filter(e -> e.getFormattedMessage().contains(text))
                .toList();
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        appender.stop();
    }
}
