package dev.sluice.engine.blocking;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;

/**
 * Blocking writes to a Jetty response, with a small staging buffer so that a composition's framing
 * bytes and small parts leave in one write instead of many. The response is always streamed
 * (chunked unless the caller set a Content-Length): {@link #finish()} never turns the first write
 * into a fixed-length one.
 */
final class ClientOutput implements AutoCloseable {

    private final Response response;
    private final RetainableByteBuffer pooled;
    private final byte[] array;
    private final int base;
    private final int capacity;
    private int staged;

    /** Stages in a buffer from the server's pool: no per-request allocation; {@link #close()} returns it. */
    ClientOutput(Response response, ByteBufferPool pool, int stagingBytes) {
        this.response = response;
        this.pooled = pool.acquire(stagingBytes, false);
        ByteBuffer buffer = pooled.getByteBuffer();
        this.array = buffer.array();
        this.base = buffer.arrayOffset();
        this.capacity = stagingBytes;
    }

    void write(byte[] bytes) throws IOException {
        write(bytes, 0, bytes.length);
    }

    void write(byte[] bytes, int offset, int length) throws IOException {
        if (staged + length > capacity) {
            flush();
            if (length >= capacity) {
                send(false, ByteBuffer.wrap(bytes, offset, length));
                return;
            }
        }
        System.arraycopy(bytes, offset, array, base + staged, length);
        staged += length;
    }

    boolean hasStaged() {
        return staged > 0;
    }

    /** Sends what is staged, so the client sees it now (before a wait). */
    void flush() throws IOException {
        if (staged > 0) {
            send(false, ByteBuffer.wrap(array, base, staged));
            staged = 0;
        }
    }

    /** Sends what is staged and ends the response. */
    void finish() throws IOException {
        if (!response.isCommitted() && !response.getHeaders().contains(HttpHeader.CONTENT_LENGTH)) {
            if (response.getRequest().getConnectionMetaData().getHttpVersion() != HttpVersion.HTTP_1_1) {
                flush(); // HTTP/1.0: no chunking; committing first keeps the response close-delimited
                send(true, ByteBuffer.allocate(0));
                return;
            }
            // a last first write would become a fixed-length response: ask for chunking outright, so that
            // head, body and last chunk still leave in one write
            response.getHeaders().put(HttpHeader.TRANSFER_ENCODING, HttpHeaderValue.CHUNKED.asString());
        }
        send(true, ByteBuffer.wrap(array, base, staged));
        staged = 0;
    }

    /** Returns the staging buffer to the pool. Every write has completed by now: writes block. */
    @Override
    public void close() {
        pooled.release();
    }

    static void send(Response response, boolean last, ByteBuffer buffer) throws IOException {
        try (Blocker.Callback callback = Blocker.callback()) {
            response.write(last, buffer, callback);
            callback.block();
        }
    }

    private void send(boolean last, ByteBuffer buffer) throws IOException {
        send(response, last, buffer);
    }
}
