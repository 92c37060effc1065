package dev.sluice.engine.blocking.upstream;

import dev.sluice.upstream.UpstreamCall;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * A request to an upstream, built by the proxy or a composition part.
 *
 * <p>Headers are kept as a flat name/value list; {@code Content-Length} and {@code Transfer-Encoding}
 * are never in it: the client frames the body from {@code contentLength}.
 */
public final class UpstreamRequest {

    private final String method;
    private final String target;
    private final List<String> headers = new ArrayList<>(24);
    private InputStream body;
    private long contentLength;
    private volatile Runnable canceller;
    private volatile boolean cancelled;
    private volatile boolean tryExpired;
    private volatile int tries = 1; // this try's per-try timeout passed: stop it, the call goes on
    private volatile Thread waiter;
    private UpstreamCall call;
    private boolean hostFromEndpoint; // the client writes Host: its endpoint's authority

    /**
     * @param method request method
     * @param target origin-form target: path and optional query, already including the upstream's base path
     */
    public UpstreamRequest(String method, String target) {
        this.method = method;
        this.target = target;
    }

    public UpstreamRequest header(String name, String value) {
        headers.add(name);
        headers.add(value);
        return this;
    }

    /** Takes out every header of this name (any case), as a translation such as gRPC-Web's asks. */
    public UpstreamRequest removeHeader(String name) {
        for (int i = headers.size() - 2; i >= 0; i -= 2) {
            if (headers.get(i).equalsIgnoreCase(name)) {
                headers.remove(i + 1);
                headers.remove(i);
            }
        }
        return this;
    }

    /**
     * Whether the client writes {@code Host: <its endpoint's host:port>} once it has chosen the
     * endpoint, as {@link dev.sluice.http.UpstreamHead#addTo} decided; without it the request carries
     * only the headers it was given.
     */
    public UpstreamRequest hostFromEndpoint(boolean fromEndpoint) {
        this.hostFromEndpoint = fromEndpoint;
        return this;
    }

    boolean hostFromEndpoint() {
        return hostFromEndpoint;
    }

    /**
     * @param contentLength the exact length, or -1 to send it chunked
     */
    public UpstreamRequest body(InputStream body, long contentLength) {
        this.body = body;
        this.contentLength = contentLength;
        return this;
    }

    public String method() {
        return method;
    }

    public String target() {
        return target;
    }

    public int headerCount() {
        return headers.size() / 2;
    }

    public String headerName(int i) {
        return headers.get(2 * i);
    }

    public String headerValue(int i) {
        return headers.get(2 * i + 1);
    }

    /** The body stream, or null when the request has none. */
    public InputStream body() {
        return body;
    }

    public long contentLength() {
        return contentLength;
    }

    /**
     * Cancels the call from any thread: a call not yet answered fails at once, a body being read
     * stops. Used for route and part timeouts.
     */
    public void cancel() {
        cancelled = true;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
        Runnable c = canceller;
        if (c != null) {
            c.run();
        }
    }

    public boolean isCancelled() {
        return cancelled;
    }

    /**
     * Stops the try in progress (its per-try timeout passed) without cancelling the call, which may be
     * tried again: the try's exchange is aborted, and one not yet started is aborted when it starts.
     */
    void expireTry() {
        tryExpired = true;
        Runnable c = canceller;
        if (c != null) {
            c.run();
        }
    }

    /** Whether the call was cancelled or its try in progress stopped by its per-try timeout. */
    boolean isStopped() {
        return cancelled || tryExpired;
    }

    /** A try of {@code call} begins: the last one's expiry no longer applies. */
    void beginTry(UpstreamCall call) {
        this.call = call;
        tryExpired = false;
        tries = call.attempt().number();
    }

    /** The call whose try this is: it decides a stale connection's resend (its own one-try call for a lone pool). */
    UpstreamCall call() {
        if (call == null) {
            call = UpstreamCall.single(method, body == null ? 0 : -1, System::nanoTime);
            call.next();
        }
        return call;
    }

    /** How many tries the call has made (more than 1 when the upstream's {@code retry} retried it). */
    public int tries() {
        return tries;
    }

    /**
     * Waits before sending (pacing), unless the call is cancelled meanwhile.
     *
     * @throws InterruptedIOException when it was cancelled or the thread interrupted
     */
    public void awaitTurn(long nanos, String upstream) throws InterruptedIOException {
        long end = System.nanoTime() + nanos;
        waiter = Thread.currentThread();
        try {
            while (!cancelled && !Thread.currentThread().isInterrupted()) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                LockSupport.parkNanos(this, left);
            }
            throw new InterruptedIOException("cancelled while pacing calls to " + upstream);
        } finally {
            waiter = null;
        }
    }

    /** Called by the client when it sends: how to cancel this call. Runs it at once if already cancelled. */
    public void onCancel(Runnable canceller) {
        this.canceller = canceller;
        if (cancelled || tryExpired) {
            canceller.run();
        }
    }
}
