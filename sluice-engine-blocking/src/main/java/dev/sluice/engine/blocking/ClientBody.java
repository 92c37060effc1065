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
    private long read;
    private volatile Throwable failure;

    /** @param limit the most bytes the body may have, or {@link dev.sluice.config.ServerLimits#UNLIMITED} */
    ClientBody(InputStream in, long limit) {
        super(in);
        this.limit = limit;
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
        return n < 0 ? n : counted(n);
    }

    private int counted(int n) throws IOException {
        read += n;
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
