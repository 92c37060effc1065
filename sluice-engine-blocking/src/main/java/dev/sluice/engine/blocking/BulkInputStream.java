package dev.sluice.engine.blocking;

import java.io.IOException;
import java.io.InputStream;

/** A body stream read in pieces ({@link #read(byte[], int, int)}): a one-byte read is a piece of one. */
abstract class BulkInputStream extends InputStream {

    @Override
    public final int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public abstract int read(byte[] b, int off, int len) throws IOException;
}
