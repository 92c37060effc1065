package dev.sluice.engine.blocking.upstream;

/**
 * An upstream's response whose body is still on the wire. Read it with {@link #read}; then {@link
 * #close()} returns the connection to the pool. {@link #abort()} drops the connection instead (for
 * a body not read to its end).
 */
public interface UpstreamResponse extends AutoCloseable {

    int status();

    int headerCount();

    String headerName(int i);

    String headerValue(int i);

    /** The first value of a header, ignoring case, or null. */
    default String header(String name) {
        for (int i = 0, n = headerCount(); i < n; i++) {
            if (headerName(i).equalsIgnoreCase(name)) {
                return headerValue(i);
            }
        }
        return null;
    }

    /** The body length from Content-Length, or -1 when the body is chunked or delimited by close. */
    long contentLength();

    /**
     * Reads body bytes, blocking until some arrive.
     *
     * @return bytes read, or -1 at the end of the body
     * @throws UpstreamException when the upstream stalls past its read timeout or breaks the body
     */
    int read(byte[] buffer, int offset, int length) throws UpstreamException;

    /**
     * A hint: how many body bytes a {@link #read} would return now without waiting (0 when unknown).
     * Lets a caller fill its buffer before a write instead of writing every read.
     */
    default int available() {
        return 0;
    }

    /**
     * Reads like {@link #read} (waiting for the first bytes), then goes on reading what has already
     * arrived, without waiting, until {@code length} bytes or the end: so that a body split over
     * several socket reads is handed on in one piece.
     *
     * @return bytes read, or -1 at the end of the body
     */
    default int readArrived(byte[] buffer, int offset, int length) throws UpstreamException {
        int n = read(buffer, offset, length);
        for (int more; n > 0 && n < length && available() > 0 && (more = read(buffer, offset + n, length - n)) > 0; ) {
            n += more;
        }
        return n;
    }

    /** Drops the connection: use when the body was not read to its end. Safe to call from any thread. */
    void abort();

    /** Releases the connection to the pool (after a body read to its end) or drops it. */
    @Override
    void close();

    /** Convenience for callers with a known failure at hand. */
    default void closeQuietly() {
        try {
            close();
        } catch (RuntimeException ignored) {
            // closing never matters more than the failure being reported
        }
    }

    /** Reads until the buffer is full or the body ends. */
    default int readFully(byte[] buffer, int offset, int length) throws UpstreamException {
        int total = 0;
        while (total < length) {
            int n = read(buffer, offset + total, length - total);
            if (n < 0) {
                return total == 0 ? -1 : total;
            }
            total += n;
        }
        return total;
    }
}
