package dev.sluice.tck;

import java.io.IOException;
import java.io.InputStream;

/** Reading an HTTP/1.1 chunked body off a raw socket a chunk at a time, as the contracts that watch parts arrive do. */
final class ChunkedWire {

    private ChunkedWire() {}

    /**
     * One chunk's data, returned as soon as it is in (the CRLF after it is taken before the next
     * chunk's size: Jetty sends it with the next chunk); empty for the last chunk, whose trailer
     * fields are read up to the empty line.
     */
    static byte[] chunk(InputStream in) throws IOException {
        String size = line(in);
        if (size.isEmpty()) { // the CRLF that ended the previous chunk's data
            size = line(in);
        }
        int semi = size.indexOf(';');
        int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
        if (n == 0) {
            while (!line(in).isEmpty()) {
                // trailer fields, up to the empty line
            }
            return new byte[0];
        }
        byte[] data = in.readNBytes(n);
        if (data.length != n) {
            throw new IOException("the connection ended inside a chunk");
        }
        return data;
    }

    /** A response's head, up to and with its empty line. */
    static String head(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the connection closed in the head: " + head);
            }
            head.append((char) b);
        }
        return head.toString();
    }

    /** One line, without its CR LF. */
    static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("the connection ended inside a line: " + line);
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    /** A chunked body as a stream of its chunks' data, ending (-1) at the last chunk. */
    static InputStream dechunked(InputStream in) {
        return new InputStream() {
            private byte[] chunk = new byte[0];
            private int at;
            private boolean ended;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                while (at == chunk.length) {
                    if (ended) {
                        return -1;
                    }
                    chunk = chunk(in);
                    at = 0;
                    ended = chunk.length == 0;
                }
                int n = Math.min(len, chunk.length - at);
                System.arraycopy(chunk, at, b, off, n);
                at += n;
                return n;
            }
        };
    }
}
