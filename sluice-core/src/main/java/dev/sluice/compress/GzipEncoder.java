package dev.sluice.compress;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * One response body as a gzip member (RFC 1952), compressed as it streams with the JDK's {@link
 * Deflater}; a flush is Deflater's {@code SYNC_FLUSH}. {@link #close} frees the Deflater's native
 * memory (about 256 KiB) at once. See {@link ResponseEncoder}.
 */
public final class GzipEncoder implements ResponseEncoder {

    private static final byte[] HEADER = {0x1f, (byte) 0x8b, Deflater.DEFLATED, 0, 0, 0, 0, 0, 0, (byte) 0xff};

    private final Deflater deflater;
    private final CRC32 crc = new CRC32();
    private byte[] out = new byte[8 * 1024];
    private int length;
    private boolean started;
    private boolean finished;

    public GzipEncoder(int level) {
        this.deflater = new Deflater(level, true);
    }

    @Override
    public ByteBuffer encode(ByteBuffer input, boolean flush) {
        begin();
        if (input.hasRemaining()) {
            crc.update(input.duplicate());
            deflater.setInput(input.duplicate());
            while (!deflater.needsInput()) {
                deflate(Deflater.NO_FLUSH);
            }
        }
        if (flush) {
            while (deflate(Deflater.SYNC_FLUSH)) {
                // until the Deflater leaves room unused: all of it is out
            }
        }
        return ByteBuffer.wrap(out, 0, length);
    }

    /** Compresses {@code input}, the body's last bytes, and ends the member (checksum and length). */
    @Override
    public ByteBuffer finish(ByteBuffer input) {
        encode(input, false);
        deflater.finish();
        while (!deflater.finished()) {
            deflate(Deflater.NO_FLUSH);
        }
        ensure(8);
        writeIntLe((int) crc.getValue());
        writeIntLe((int) deflater.getBytesRead());
        finished = true;
        return ByteBuffer.wrap(out, 0, length);
    }

    @Override
    public boolean isFinished() {
        return finished;
    }

    /** Frees the Deflater. */
    @Override
    public void close() {
        deflater.end();
    }

    private void begin() {
        length = 0;
        if (!started) {
            started = true;
            System.arraycopy(HEADER, 0, out, 0, HEADER.length);
            length = HEADER.length;
        }
    }

    /** One deflate call into the free room; returns whether it filled all of it (call again). */
    private boolean deflate(int flush) {
        ensure(1024);
        int room = out.length - length;
        int n = deflater.deflate(out, length, room, flush);
        length += n;
        return n == room;
    }

    private void ensure(int room) {
        if (out.length - length < room) {
            byte[] bigger = new byte[Math.max(out.length * 2, length + room)];
            System.arraycopy(out, 0, bigger, 0, length);
            out = bigger;
        }
    }

    private void writeIntLe(int value) {
        out[length++] = (byte) value;
        out[length++] = (byte) (value >>> 8);
        out[length++] = (byte) (value >>> 16);
        out[length++] = (byte) (value >>> 24);
    }
}
