package dev.sluice.engine.blocking;

import dev.sluice.http.BodyLimit;
import dev.sluice.http.BrokenRequestBody;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The client's request body as the upstream client reads it, remembering whether reading it failed
 * (Jetty's parser rejected its framing, or the client went away mid-body). The upstream client then
 * aborts the exchange without ending the body; this tells the proxy that the client, not the
 * upstream, broke it. It also counts the body against the route's limit ({@link BodyLimit}): a
 * body that passes it fails the same way, so the upstream request is aborted, never ended.
 */
final class ClientBody extends FilterInputStream {

    private final long limit;
    private final ClientDeparture departure;
    private final long length; // as declared, or -1: the end is the stream's
    private long read;
    private volatile Throwable failure;

    /**
     * @param limit the most bytes the body may have, or {@link dev.sluice.config.ServerLimits#UNLIMITED}
     * @param departure told when the body was read to its end (its connection may then be watched)
     * @param length the body's declared length, or -1: then its end is the stream's
     */
    ClientBody(InputStream in, long limit, ClientDeparture departure, long length) {
        super(in);
        this.limit = limit;
        this.departure = departure;
        this.length = length;
    }

    @Override
    public int read() throws IOException {
        int b;
        try {
            b = super.read();
        } catch (IOException | RuntimeException e) {
            throw failed(e);
        }
        if (b >= 0) {
            counted(1);
        } else {
            departure.markReadWhole();
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n;
        try {
            n = super.read(b, off, len);
        } catch (IOException | RuntimeException e) {
            throw failed(e);
        }
        if (n < 0) {
            departure.markReadWhole();
            return n;
        }
        return counted(n);
    }

    private int counted(int n) throws IOException {
        read += n;
        if (read == length) {
            departure.markReadWhole();
        }
        if (BodyLimit.exceeds(read, limit)) {
            throw failed(new BodyLimit.Exceeded(limit));
        }
        return n;
    }

    /** The failure as the client's, when reading its body failed. */
    BrokenRequestBody broken() {
        Throwable f = failure;
        return f == null || f instanceof BodyLimit.Exceeded ? null : new BrokenRequestBody(f);
    }

    /** The limit the body passed, when it did. */
    BodyLimit.Exceeded tooLarge() {
        return failure instanceof BodyLimit.Exceeded exceeded ? exceeded : null;
    }

    private IOException failed(Exception e) {
        failure = e;
        return e instanceof IOException io ? io : new IOException(e);
    }
}
