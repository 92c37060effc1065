package dev.sluice.engine.reactive;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * One upstream connection's socket reads: Netty's adaptive sizing (it grows a read after one that
 * filled its buffer and shrinks it after small ones), capped by what the reading exchange allows
 * ({@link #cap}). A composition part sets the cap to the bytes its {@link
 * dev.sluice.compose.CompositionBudget} reserved for the read, so a read never brings more than its
 * share; a proxied call and an idle connection read uncapped ({@link #MAX}).
 *
 * <p>The cap applies when a read's buffer is taken: with NIO when the socket is readable, with
 * io_uring when the read is submitted. A read already submitted while the connection was idle keeps the
 * buffer it was given then ({@link #pending}): a part that takes the connection reserves that much; what
 * it could not reserve is taken from the budget as it arrives ({@link
 * dev.sluice.compose.CompositionBudget.Reader#arrived}).
 */
final class CappedReads implements RecvByteBufAllocator {

    /** The largest read: Netty's adaptive maximum, 64 KiB. */
    static final int MAX = AdaptiveRecvByteBufAllocator.DEFAULT_MAXIMUM;

    private final AdaptiveRecvByteBufAllocator adaptive = new AdaptiveRecvByteBufAllocator();
    private int cap = MAX; // on the connection's loop
    private int pending; // the buffer of a read taken and not yet filled (io_uring: submitted), else 0

    /**
     * The size of the buffer a read holds that has not completed: with io_uring, a read armed while the
     * connection was idle; with NIO always 0 (a buffer is taken only once the socket is readable).
     * Read by the connection's next exchange, after the lane handed it over (a task: it sees the write).
     */
    int pending() {
        return pending;
    }

    /** The next reads' largest buffer, until set again (on the connection's loop). */
    void cap(int bytes) {
        cap = Math.max(1, Math.min(bytes, MAX));
    }

    @Override
    public Handle newHandle() {
        return new Capped((ExtendedHandle) adaptive.newHandle());
    }

    private final class Capped extends DelegatingHandle implements ExtendedHandle {
        private final ExtendedHandle handle;

        Capped(ExtendedHandle handle) {
            super(handle);
            this.handle = handle;
        }

        @Override
        public int guess() {
            return Math.min(handle.guess(), cap);
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            int size = guess();
            pending = size;
            return alloc.ioBuffer(size);
        }

        @Override
        public void lastBytesRead(int bytes) {
            pending = 0;
            super.lastBytesRead(bytes);
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return handle.continueReading(maybeMoreDataSupplier);
        }
    }
}
