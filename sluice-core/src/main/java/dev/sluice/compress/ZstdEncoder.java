package dev.sluice.compress;

import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * One response body as a zstd frame (RFC 8878), compressed as it streams with zstd-jni (the
 * reference libzstd through JNI); a flush is zstd's {@code ZSTD_e_flush}, which ends a block so that
 * all input so far decodes. The window is 512 KiB ({@code windowLog} 19), well under the 8 MiB a
 * browser's decoder accepts for HTTP (RFC 8878 section 3.1.1.1.2), which bounds the context to a few
 * hundred KiB at the low levels a gateway uses. See {@link ResponseEncoder}.
 */
public final class ZstdEncoder implements ResponseEncoder {

    /** The window: 2^19 bytes. */
    static final int WINDOW_LOG = 19;

    private final Sink sink = new Sink();
    private final ZstdOutputStreamNoFinalizer zstd;
    private boolean finished;
    private boolean closed;

    public ZstdEncoder(int level) {
        try {
            this.zstd = new ZstdOutputStreamNoFinalizer(sink, level);
            zstd.setWindowLog(WINDOW_LOG);
        } catch (IOException e) {
            throw new UncheckedIOException("zstd: cannot start a frame", e);
        }
    }

    /**
     * Whether zstd's native library loads on this machine (it is unpacked from the jar to the
     * temporary directory): the configuration check asks before a route may offer zstd, and a route
     * that offers it loads it when it is compiled ({@link Compression}), so the file work is done
     * there and never on an event loop by a first response.
     *
     * @return empty when it loads, else why not
     */
    public static java.util.Optional<String> unavailable() {
        try {
            com.github.luben.zstd.util.Native.load();
            // and the stream's class, whose initializer asks the library for its buffer size
            Class.forName(ZstdOutputStreamNoFinalizer.class.getName(), true, ZstdEncoder.class.getClassLoader());
            return java.util.Optional.empty();
        } catch (LinkageError | RuntimeException | ClassNotFoundException e) {
            return java.util.Optional.of(String.valueOf(e.getMessage()));
        }
    }

    @Override
    public ByteBuffer encode(ByteBuffer input, boolean flush) {
        sink.length = 0;
        try {
            write(input);
            if (flush) {
                zstd.flush();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("zstd: " + e.getMessage(), e);
        }
        return ByteBuffer.wrap(sink.out, 0, sink.length);
    }

    @Override
    public ByteBuffer finish(ByteBuffer input) {
        sink.length = 0;
        try {
            write(input);
            zstd.close(); // ends the frame; the sink's close does nothing
            closed = true;
        } catch (IOException e) {
            throw new UncheckedIOException("zstd: " + e.getMessage(), e);
        }
        finished = true;
        return ByteBuffer.wrap(sink.out, 0, sink.length);
    }

    @Override
    public boolean isFinished() {
        return finished;
    }

    /** Frees the native context (and the frame is abandoned if it was not finished). */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            try {
                zstd.close();
            } catch (IOException e) {
                // the frame is abandoned: nothing is written after a close
            }
        }
    }

    private void write(ByteBuffer input) throws IOException {
        if (!input.hasRemaining()) {
            return;
        }
        if (input.hasArray()) {
            zstd.write(input.array(), input.arrayOffset() + input.position(), input.remaining());
            return;
        }
        byte[] copy = new byte[Math.min(input.remaining(), 16 * 1024)];
        ByteBuffer in = input.duplicate();
        while (in.hasRemaining()) {
            int n = Math.min(copy.length, in.remaining());
            in.get(copy, 0, n);
            zstd.write(copy, 0, n);
        }
    }

    /** What zstd writes, gathered in one array reused from call to call. */
    private static final class Sink extends OutputStream {
        byte[] out = new byte[8 * 1024];
        int length;

        @Override
        public void write(int b) {
            ensure(1);
            out[length++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, out, length, len);
            length += len;
        }

        private void ensure(int room) {
            if (out.length - length < room) {
                out = java.util.Arrays.copyOf(out, Math.max(out.length * 2, length + room));
            }
        }
    }
}
