package dev.sluice.observe;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where an engine reports a client's protocol error: each is counted ({@link
 * GatewayObserver#clientProtocolError}) and logged at most once per kind per minute, in one line
 * without a stack trace, naming the kind, the error's class (never its message, which may quote the
 * client's bytes: Netty's {@code NotSslRecordException} hex-dumps them) and how many of that kind
 * the previous minute left unlogged. docs/ENGINE-CONTRACT.md, "Logs".
 */
public final class ClientProtocolErrors {

    /** At most one line per kind in this long. */
    public static final Duration QUIET = Duration.ofMinutes(1);

    private static final Logger LOG = LoggerFactory.getLogger(ClientProtocolErrors.class);

    private final GatewayObserver observer;
    private final LongSupplier nanoClock;
    private final Line line;
    private final Map<ClientProtocolError, Window> windows = new EnumMap<>(ClientProtocolError.class);

    /** Where a line goes: the gateway's log, or a test's list. */
    @FunctionalInterface
    public interface Line {
        void write(String text);
    }

    public ClientProtocolErrors(GatewayObserver observer) {
        this(observer, System::nanoTime, LOG::info);
    }

    /** With a clock ({@link System#nanoTime()}'s units) and a line writer of its own: for tests. */
    public ClientProtocolErrors(GatewayObserver observer, LongSupplier nanoClock, Line line) {
        this.observer = observer;
        this.nanoClock = nanoClock;
        this.line = line;
        for (ClientProtocolError kind : ClientProtocolError.values()) {
            windows.put(kind, new Window());
        }
    }

    /**
     * Counts one error of {@code kind}; logs it unless a line of that kind was written less than
     * {@link #QUIET} ago. {@code cause} may be null; only its class's name is written.
     */
    public void report(ClientProtocolError kind, Throwable cause) {
        observer.clientProtocolError(kind);
        Window window = windows.get(kind);
        long now = nanoClock.getAsLong();
        long unlogged;
        synchronized (window) { // a few per connection at most: never contended for long
            if (window.logged && now - window.next < 0) {
                window.suppressed++;
                return;
            }
            window.logged = true;
            window.next = now + QUIET.toNanos();
            unlogged = window.suppressed;
            window.suppressed = 0;
        }
        line.write("client protocol error (" + kind.tag() + "): "
                + (cause == null ? "refused" : cause.getClass().getSimpleName())
                + (unlogged > 0 ? "; " + unlogged + " more of this kind since the last such line" : "")
                + "; at most one line per kind a minute, all counted in sluice_client_protocol_errors_total");
    }

    private static final class Window {
        long next;
        long suppressed;
        boolean logged;
    }
}
