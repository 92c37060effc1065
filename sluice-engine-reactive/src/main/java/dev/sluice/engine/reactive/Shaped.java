package dev.sluice.engine.reactive;

import dev.sluice.compose.JsonShaper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocal;

/** Passes a shaped part's chunk through the plan's {@link JsonShaper}: the bytes only move here. */
final class Shaped {

    /** A direct chunk's bytes are copied here, a slice at a time: one array per event loop. */
    private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[16 * 1024];
        }
    };

    private Shaped() {}

    /** The chunk's bytes as shaped, in a new buffer; the chunk is released. */
    static ByteBuf shape(JsonShaper shaper, ByteBuf chunk, ByteBufAllocator alloc) {
        try {
            int length = chunk.readableBytes();
            ByteBuf out = alloc.heapBuffer(length + 64);
            if (chunk.hasArray()) {
                shape(shaper, chunk.array(), chunk.arrayOffset() + chunk.readerIndex(), length, out);
            } else {
                byte[] scratch = SCRATCH.get();
                for (int from = 0; from < length; from += scratch.length) {
                    int n = Math.min(scratch.length, length - from);
                    chunk.getBytes(chunk.readerIndex() + from, scratch, 0, n);
                    shape(shaper, scratch, 0, n, out);
                }
            }
            return out;
        } finally {
            chunk.release();
        }
    }

    private static void shape(JsonShaper shaper, byte[] in, int offset, int length, ByteBuf out) {
        int used = 0;
        while (used < length || shaper.hasPending()) {
            out.ensureWritable(Math.max(64, length - used));
            used += shaper.shape(
                    in,
                    offset + used,
                    length - used,
                    out.array(),
                    out.arrayOffset() + out.writerIndex(),
                    out.writableBytes());
            out.writerIndex(out.writerIndex() + shaper.produced());
        }
    }
}
