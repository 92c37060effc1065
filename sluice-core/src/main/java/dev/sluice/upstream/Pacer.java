package dev.sluice.upstream;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.Pace;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Decides when calls to a paced upstream may start: at most {@code permits} starts in any window of
 * {@code per}. Starts are spread evenly, one slot every {@code per / permits} (rounded up), so even
 * a burst never puts more than {@code permits} starts in one window. The engine asks {@link
 * #reserve()} and waits the answer before it starts the call; a reserved slot is used up whether the
 * caller waits or gives up.
 *
 * <pre>
 *   slot:    |-------|-------|-------|        interval = per / permits
 *   calls:   a       b   c→wait  d→wait ...   each takes the next free slot
 * </pre>
 *
 * Lock-free; safe for any number of threads.
 */
public final class Pacer {

    private final LongSupplier nanoClock;
    private final long intervalNanos;
    private final AtomicLong nextSlot; // the earliest start of the next call, on nanoClock's scale

    /**
     * @param nanoClock a monotonic clock in nanoseconds, such as {@code System::nanoTime}
     */
    public Pacer(Pace pace, LongSupplier nanoClock) {
        requireNonNull(pace, "pace");
        this.nanoClock = requireNonNull(nanoClock, "nanoClock");
        long perNanos = saturatedNanos(pace);
        this.intervalNanos = Math.max(1, perNanos / pace.permits() + (perNanos % pace.permits() == 0 ? 0 : 1));
        this.nextSlot = new AtomicLong(nanoClock.getAsLong());
    }

    public Pacer(Pace pace) {
        this(pace, System::nanoTime);
    }

    /**
     * Reserves the next start slot.
     *
     * @return nanoseconds to wait before starting the call; 0 means start now
     */
    public long reserve() {
        long now = nanoClock.getAsLong();
        while (true) {
            long next = nextSlot.get();
            long start = next - now > 0 ? next : now; // overflow-safe max, as nanoTime values may wrap
            if (nextSlot.compareAndSet(next, start + intervalNanos)) {
                return start - now;
            }
        }
    }

    /** The time between two consecutive start slots. */
    public long intervalNanos() {
        return intervalNanos;
    }

    private static long saturatedNanos(Pace pace) {
        try {
            return pace.per().toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }

    @Override
    public String toString() {
        return "Pacer[interval=" + intervalNanos + "ns]";
    }
}
