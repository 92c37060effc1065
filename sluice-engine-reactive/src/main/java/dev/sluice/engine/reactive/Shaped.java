package dev.sluice.engine.reactive;

import dev.sluice.compose.JsonShaper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/** Passes a shaped part's chunk through the plan's {@link JsonShaper}: the bytes only move here. */
final class Shaped {

    private Shaped() {}

    /** The chunk's bytes as shaped, in a new buffer; the chunk is released. */
    static ByteBuf shape(JsonShaper shaper, ByteBuf chunk, ByteBufAllocator alloc) {
        try {
            int length = chunk.readableBytes();
            byte[] in;
            int offset;
            if (chunk.hasArray()) {
                in = chunk.array();
                offset = chunk.arrayOffset() + chunk.readerIndex();
            } else {
                in = new byte[length];
                chunk.getBytes(chunk.readerIndex(), in);
                offset = 0;
            }
            ByteBuf out = alloc.heapBuffer(length + 64);
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
            return out;
        } finally {
            chunk.release();
        }
    }
}
