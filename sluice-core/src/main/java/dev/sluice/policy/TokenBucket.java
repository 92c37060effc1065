package dev.sluice.policy;

import dev.sluice.config.FilterConfig;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The arithmetic of a {@code rate-limit} bucket, as a generic cell rate algorithm: a bucket of
 * {@code capacity = permits + burst} tokens that refills one token every {@code interval = per /
 * permits} (rounded up to the nanosecond), kept as one number per key, the <em>theoretical arrival
 * time</em> {@code tat}: the instant the bucket will be full again. A request at {@code now} takes a
 * token when {@code max(tat, now) + interval - now <= capacity * interval}, and then {@code tat}
 * moves on by one interval. So a full bucket lets {@code capacity} requests through at once, and
 * over any stretch of time {@code t} at most {@code capacity + t / interval} requests pass.
 *
 * <p>One {@link AtomicLong} per key, changed by compare-and-set: no lock, and N threads together
 * never take more tokens than the bucket holds. {@code sluice-redis} runs the same arithmetic in a
 * Lua script, on Redis's clock.
 */
public final class TokenBucket {

    /** A {@code tat} not set yet: a full bucket. */
    static final long FULL = Long.MIN_VALUE;

    private final long intervalNanos;
    private final long capacity;
    private final long windowNanos; // capacity * interval, saturated

    public TokenBucket(long permits, Duration per, long burst) {
        if (permits < 1 || burst < 0) {
            throw new IllegalArgumentException("rate-limit: permits >= 1 and burst >= 0");
        }
        long perNanos = saturatedNanos(per);
        this.intervalNanos = Math.max(1, perNanos / permits + (perNanos % permits == 0 ? 0 : 1));
        this.capacity = permits + burst;
        long window;
        try {
            window = Math.multiplyExact(intervalNanos, capacity);
        } catch (ArithmeticException e) {
            window = Long.MAX_VALUE / 4;
        }
        this.windowNanos = Math.min(window, Long.MAX_VALUE / 4);
    }

    public static TokenBucket of(FilterConfig.RateLimit limit) {
        return new TokenBucket(limit.permits(), limit.per(), limit.burst());
    }

    /** The nanoseconds between two tokens. */
    public long intervalNanos() {
        return intervalNanos;
    }

    /** The most tokens the bucket holds: {@code permits + burst}. */
    public long capacity() {
        return capacity;
    }

    /** How long an emptied bucket takes to fill again: {@code capacity * interval}. */
    public long windowNanos() {
        return windowNanos;
    }

    /**
     * Takes a token from the bucket whose state is {@code tat}, at {@code now} (a monotonic clock in
     * nanoseconds).
     */
    public Take take(AtomicLong tat, long now) {
        while (true) {
            long current = tat.get();
            long base = current == FULL || current - now < 0 ? now : current;
            long next = base + intervalNanos;
            long wait = next - now - windowNanos;
            if (wait > 0) {
                return Take.refused(capacity, wait, base - now);
            }
            if (tat.compareAndSet(current, next)) {
                long untilFull = next - now;
                return Take.admitted(capacity, (windowNanos - untilFull) / intervalNanos, untilFull);
            }
        }
    }

    private static long saturatedNanos(Duration per) {
        try {
            return per.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }

    /**
     * What a bucket answered.
     *
     * @param admitted whether the request took a token
     * @param limit the bucket's capacity
     * @param remaining the tokens left after this request (0 when refused)
     * @param retryNanos when refused, the time until a token is there; 0 when admitted
     * @param resetNanos the time until the bucket is full again
     */
    public record Take(boolean admitted, long limit, long remaining, long retryNanos, long resetNanos) {
        public static Take admitted(long limit, long remaining, long resetNanos) {
            return new Take(true, limit, remaining, 0, resetNanos);
        }

        public static Take refused(long limit, long retryNanos, long resetNanos) {
            return new Take(false, limit, 0, retryNanos, resetNanos);
        }
    }
}
