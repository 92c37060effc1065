package dev.sluice.engine.reactive;

import dev.sluice.compose.JsonShaper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Passes a shaped part's chunk through the plan's {@link JsonShaper}: the bytes only move here.
 *
 * <p>What the shaper keeps goes into a direct buffer from the client channel's pooled allocator, the
 * kind the chunk came in and the kind the connection writes, sized by what was kept rather than by
 * what came in: a selection keeps a few bytes of a large part, and those few bytes are all it holds
 * while the part waits for its turn. A heap buffer (as before) drew on the allocator's heap arenas,
 * which the plain path never touches, and was copied to a direct one again when written.
 */
final class Shaped {

    private static final int SLICE = 16 * 1024;

    /**
     * One loop's arrays: a direct chunk's bytes are copied into {@code in} a slice at a time, and the
     * shaper writes into {@code out} before the kept bytes are copied into the part's buffer.
     */
    private record Scratch(byte[] in, byte[] out) {}

    private static final FastThreadLocal<Scratch> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected Scratch initialValue() {
            return new Scratch(new byte[SLICE], new byte[SLICE]);
        }
    };

    private Shaped() {}

    /** The chunk's bytes as shaped, in a new buffer (empty when none were kept); the chunk is released. */
    static ByteBuf shape(JsonShaper shaper, ByteBuf chunk, ByteBufAllocator alloc) {
        ByteBuf out = null;
        try {
            Scratch scratch = SCRATCH.get();
            int length = chunk.readableBytes();
            if (chunk.hasArray()) {
                out = shape(
                        shaper, chunk.array(), chunk.arrayOffset() + chunk.readerIndex(), length, scratch, out, alloc);
            } else {
                for (int from = 0; from < length; from += SLICE) {
                    int n = Math.min(SLICE, length - from);
                    chunk.getBytes(chunk.readerIndex() + from, scratch.in, 0, n);
                    out = shape(shaper, scratch.in, 0, n, scratch, out, alloc);
                }
            }
            ByteBuf shaped = out == null ? Unpooled.EMPTY_BUFFER : out;
            out = null;
            return shaped;
        } finally {
            chunk.release();
            if (out != null) { // the shaper threw: nothing is handed on
                out.release();
            }
        }
    }

    /** Shapes {@code in[offset..offset+length)}; what is kept is added to {@code out}, allocated on the first byte kept. */
    private static ByteBuf shape(
            JsonShaper shaper,
            byte[] in,
            int offset,
            int length,
            Scratch scratch,
            ByteBuf out,
            ByteBufAllocator alloc) {
        int used = 0;
        while (used < length || shaper.hasPending()) {
            used += shaper.shape(in, offset + used, length - used, scratch.out, 0, SLICE);
            int kept = shaper.produced();
            if (kept > 0) {
                if (out == null) {
                    out = alloc.directBuffer(kept);
                }
                out.writeBytes(scratch.out, 0, kept);
            }
        }
        return out;
    }
}
