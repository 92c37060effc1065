package dev.sluice.engine.blocking.upstream;

import dev.sluice.http.UpstreamFailure;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.HTTP2Stream;
import org.eclipse.jetty.http2.api.Stream;
import org.eclipse.jetty.http2.frames.HeadersFrame;
import org.eclipse.jetty.http2.frames.ResetFrame;
import org.eclipse.jetty.util.Callback;

/**
 * One stream of an {@link H2UpstreamClient}: Jetty's listener on one side, a blocking {@link
 * UpstreamResponse} on the other. Jetty's threads only queue what arrives; the caller's thread takes
 * it, and demands the next DATA frame only once it has read the last, so the upstream's stream window
 * fills while the client is slow.
 */
final class H2Exchange implements Stream.Listener, UpstreamResponse {

    private static final Object END = new Object();

    private final String upstream;
    private final long readTimeoutNanos;
    private final Runnable release;
    private final CompletableFuture<MetaData.Response> head = new CompletableFuture<>();
    private final LinkedBlockingQueue<Object> arrived = new LinkedBlockingQueue<>(); // Data, Throwable, END
    private final CompletableFuture<HttpFields> trailersArrived = new CompletableFuture<>();
    private final AtomicBoolean released = new AtomicBoolean();
    private final List<String> headers = new ArrayList<>();
    private volatile Stream stream;
    private volatile HttpFields trailers;
    /** The upstream's answer ended (END_STREAM seen, or its trailers): what fails after it changes nothing. */
    private volatile boolean answerEnded;

    private Stream.Data current;
    private boolean ended;
    private long contentLength = -1;

    H2Exchange(String upstream, long readTimeoutNanos, Runnable release) {
        this.upstream = upstream;
        this.readTimeoutNanos = readTimeoutNanos;
        this.release = release;
    }

    void opened(Stream stream) {
        this.stream = stream;
    }

    // Jetty's side

    @Override
    public void onHeaders(Stream stream, HeadersFrame frame) {
        MetaData meta = frame.getMetaData();
        if (meta instanceof MetaData.Response response && !head.isDone()) {
            if (dev.sluice.http.ResponseHeadCheck.interim(response.getStatus())) {
                stream.demand(); // an interim answer: the real one follows
                return;
            }
            if (frame.isEndStream()) {
                answerEnded = true;
                arrived.add(END);
            }
            head.complete(response);
            if (!frame.isEndStream()) {
                stream.demand();
            }
        } else {
            // trailers: Jetty queued the stream's end behind the DATA not yet read, and tells of the
            // trailers at once; the reader takes them when it reaches that end
            answerEnded = true;
            trailersArrived.complete(meta.getHttpFields());
        }
    }

    @Override
    public void onDataAvailable(Stream stream) {
        Stream.Data data = stream.readData();
        if (data == null) {
            stream.demand();
            return;
        }
        if (data.frame().isEndStream()) {
            answerEnded = true;
        }
        arrived.add(data);
    }

    @Override
    public void onReset(Stream stream, ResetFrame frame, Callback callback) {
        this.stream = stream; // the reset can come before the caller is told the stream opened
        failed(new java.io.IOException("upstream reset the stream: " + ErrorCode.toString(frame.getError(), "?")));
        callback.succeeded();
    }

    @Override
    public void onFailure(Stream stream, int error, String reason, Throwable failure, Callback callback) {
        failed(failure != null ? failure : new java.io.IOException("stream failed: " + reason));
        callback.succeeded();
    }

    @Override
    public void onIdleTimeout(
            Stream stream, TimeoutException timeout, org.eclipse.jetty.util.Promise<Boolean> promise) {
        failed(timeout);
        promise.succeeded(true);
    }

    /** The exchange failed (reset, connection lost, the client's body broke): whoever waits learns it. */
    void failed(Throwable failure) {
        // once the answer is whole, a failure after it (an upstream's RST_STREAM NO_ERROR ending the request
        // half it no longer needs, RFC 9113 8.1, or the request body's end failing to go out) loses nothing:
        // the reader is not told; the stream is still reset, so a body still being sent stops
        if (!answerEnded && !endReceived()) {
            trailersArrived.complete(null);
            if (!head.completeExceptionally(failure)) {
                arrived.add(failure);
            }
        }
        Stream s = stream;
        if (s != null && !s.isClosed()) {
            s.reset(new ResetFrame(s.getId(), ErrorCode.CANCEL_STREAM_ERROR.code), Callback.NOOP);
        }
    }

    /**
     * Jetty has received the answer's last DATA frame (END_STREAM), though the reader may not have taken
     * it, nor the frames before it: a reset then keeps them queued for the reader (Jetty drains the queue
     * only of an answer not ended), so it is a reset after the whole answer.
     */
    private boolean endReceived() {
        return stream instanceof HTTP2Stream s && s.isLastDataReceived();
    }

    /** The call was cancelled or its try expired. */
    void cancel() {
        failed(new java.io.InterruptedIOException("cancelled"));
    }

    // the caller's side

    /** Waits for the response head, at most the read timeout. */
    void awaitHead() throws UpstreamException {
        MetaData.Response response;
        try {
            response = head.get(readTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abort();
            throw new UpstreamException(UpstreamFailure.TIMEOUT, upstream, e);
        } catch (TimeoutException e) {
            abort();
            throw new UpstreamException(UpstreamFailure.READ_TIMEOUT, upstream, e);
        } catch (ExecutionException e) {
            abort();
            throw new UpstreamException(UpstreamFailure.RESET, upstream, e.getCause());
        }
        for (HttpField field : response.getHttpFields()) {
            headers.add(field.getName());
            headers.add(field.getValue());
        }
        contentLength = response.getHttpFields().getLongField(org.eclipse.jetty.http.HttpHeader.CONTENT_LENGTH);
    }

    @Override
    public int status() {
        return head.join().getStatus();
    }

    @Override
    public int headerCount() {
        return headers.size() / 2;
    }

    @Override
    public String headerName(int i) {
        return headers.get(2 * i);
    }

    @Override
    public String headerValue(int i) {
        return headers.get(2 * i + 1);
    }

    @Override
    public long contentLength() {
        return contentLength;
    }

    /**
     * The upstream's trailers, null when it sent none. A body of declared length is relayed whole
     * before its stream's end is read: what follows it (the trailers) is read here, on the caller's
     * thread, as the last write asks for them.
     */
    HttpFields trailers() {
        if (!ended) {
            byte[] rest = new byte[1024];
            try {
                while (read(rest, 0, rest.length) >= 0) {
                    // nothing follows a body of declared length but its end and trailers
                }
            } catch (UpstreamException e) {
                return null;
            }
        }
        return trailers;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws UpstreamException {
        while (true) {
            if (ended) {
                return -1;
            }
            if (current != null) {
                ByteBuffer bytes = current.frame().getByteBuffer();
                if (bytes.hasRemaining()) {
                    int n = Math.min(length, bytes.remaining());
                    bytes.get(buffer, offset, n);
                    if (!bytes.hasRemaining()) {
                        finishFrame();
                    }
                    return n;
                }
                finishFrame();
                continue;
            }
            Object next;
            try {
                next = arrived.poll(readTimeoutNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                abort();
                throw new UpstreamException(UpstreamFailure.TIMEOUT, upstream, e);
            }
            switch (next) {
                case null -> {
                    abort();
                    throw new UpstreamException(UpstreamFailure.READ_TIMEOUT, upstream, null);
                }
                case Stream.Data data -> current = data;
                case Throwable failure -> {
                    abort();
                    throw new UpstreamException(UpstreamFailure.RESET, upstream, failure);
                }
                default -> { // END
                    ended = true;
                    done();
                }
            }
        }
    }

    /** The frame in hand is read: released (which credits the upstream's window), and the next demanded. */
    private void finishFrame() {
        Stream.Data data = current;
        current = null;
        boolean last = data.frame().isEndStream();
        boolean byTrailers = data.getClass().getName().endsWith("$EOF"); // the end a HEADERS frame brought
        data.release();
        if (byTrailers) {
            try {
                trailers = trailersArrived.get(readTimeoutNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // no trailers to relay
            }
        }
        if (last) {
            ended = true;
            done();
        } else {
            stream.demand();
        }
    }

    @Override
    public int available() {
        Stream.Data data = current;
        if (data != null) {
            return data.frame().getByteBuffer().remaining();
        }
        return arrived.peek() instanceof Stream.Data next ? next.frame().remaining() : 0;
    }

    private void done() {
        if (released.compareAndSet(false, true)) {
            release.run();
        }
    }

    @Override
    public void abort() {
        Stream s = stream;
        if (s != null && !s.isClosed()) {
            s.reset(new ResetFrame(s.getId(), ErrorCode.CANCEL_STREAM_ERROR.code), Callback.NOOP);
        }
        if (current != null) {
            current.release();
            current = null;
        }
        for (Object o; (o = arrived.poll()) != null; ) {
            if (o instanceof Stream.Data d) {
                d.release();
            }
        }
        done();
    }

    @Override
    public void close() {
        if (!ended) {
            abort();
        }
    }
}
