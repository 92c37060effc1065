package dev.sluice.engine.blocking;

import dev.sluice.http.BrokenRequestBody;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The client's request body as the upstream client reads it, remembering whether reading it failed
 * (Jetty's parser rejected its framing, or the client went away mid-body). The upstream client then
 * aborts the exchange without ending the body; this tells the proxy that the client, not the
 * upstream, broke it.
 */
final class ClientBody extends FilterInputStream {

    private volatile Throwable failure;

    ClientBody(InputStream in) {
        super(in);
    }

    @Override
    public int read() throws IOException {
        try {
            return super.read();
        } catch (IOException | RuntimeException e) {
            throw failed(e);
        }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        try {
            return super.read(b, off, len);
        } catch (IOException | RuntimeException e) {
            throw failed(e);
        }
    }

    /** The failure as the client's, when reading its body failed. */
    BrokenRequestBody broken() {
        return failure == null ? null : new BrokenRequestBody(failure);
    }

    private IOException failed(Exception e) {
        failure = e;
        return e instanceof IOException io ? io : new IOException(e);
    }
}
