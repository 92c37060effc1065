package dev.sluice.engine.blocking;

import java.util.concurrent.ArrayBlockingQueue;

/**
 * Recycles the composition parts' ring buffers, so that a composition allocates no body-sized
 * arrays once the gateway is warm (they were most of its garbage). Rings come in power-of-two
 * sizes from 1 KB to 1 MB; a ring that would exceed the part's read-ahead, or 1 MB, is allocated
 * exactly and not kept. At most about {@code maxRetainedBytes} are kept in total.
 */
final class RingPool {

    private static final int MIN_SHIFT = 10;
    private static final int MAX_SHIFT = 20;

    private final ArrayBlockingQueue<byte[]>[] classes;

    @SuppressWarnings("unchecked")
    RingPool(long maxRetainedBytes) {
        int count = MAX_SHIFT - MIN_SHIFT + 1;
        classes = new ArrayBlockingQueue[count];
        for (int i = 0; i < count; i++) {
            long perClass = maxRetainedBytes / count;
            classes[i] = new ArrayBlockingQueue<>((int) Math.max(2, Math.min(4096, perClass >> (MIN_SHIFT + i))));
        }
    }

    /** The length of the ring {@link #take}{@code (size, limit)} gives: what it costs before it is taken. */
    static int length(int size, int limit) {
        int shift = Math.max(MIN_SHIFT, 32 - Integer.numberOfLeadingZeros(size - 1));
        return shift > MAX_SHIFT || (1 << shift) > Math.max(size, limit) ? size : 1 << shift;
    }

    /** A ring of at least {@code size} bytes and at most {@code max(size, limit)}: {@link #length} of them. */
    byte[] take(int size, int limit) {
        int shift = Math.max(MIN_SHIFT, 32 - Integer.numberOfLeadingZeros(size - 1));
        if (shift > MAX_SHIFT || (1 << shift) > Math.max(size, limit)) {
            return new byte[size];
        }
        byte[] ring = classes[shift - MIN_SHIFT].poll();
        return ring != null ? ring : new byte[1 << shift];
    }

    /** Takes a ring back; nobody may touch it afterwards. Rings of other sizes are left to the GC. */
    void give(byte[] ring) {
        int length = ring.length;
        if (Integer.bitCount(length) != 1) {
            return;
        }
        int shift = Integer.numberOfTrailingZeros(length);
        if (shift >= MIN_SHIFT && shift <= MAX_SHIFT) {
            classes[shift - MIN_SHIFT].offer(ring); // dropped when that class is full
        }
    }
}
