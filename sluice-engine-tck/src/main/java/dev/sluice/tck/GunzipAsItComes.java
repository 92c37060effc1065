package dev.sluice.tck;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/** Gzip decoded from what has arrived so far (the gateway's gzip header is the plain 10 bytes). */
final class GunzipAsItComes {
    private final Inflater inflater = new Inflater(true);
    private final ByteArrayOutputStream decoded = new ByteArrayOutputStream();
    private int headerLeft = 10;

    void feed(byte[] bytes) throws IOException {
        int skip = Math.min(headerLeft, bytes.length);
        headerLeft -= skip;
        inflater.setInput(bytes, skip, bytes.length - skip);
        byte[] out = new byte[8192];
        try {
            for (int n = inflater.inflate(out); n > 0 || !inflater.needsInput(); n = inflater.inflate(out)) {
                decoded.write(out, 0, n);
                if (inflater.finished()) {
                    break;
                }
            }
        } catch (DataFormatException e) {
            throw new IOException(e);
        }
    }

    String decoded() {
        return decoded.toString(StandardCharsets.UTF_8);
    }
}
