package dev.sluice.compose;

import dev.sluice.config.ServerConfig;
import dev.sluice.config.ServerLimits;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the whole gateway may hold read ahead of its clients ({@code server.limits.max-read-ahead}):
 * one budget of bytes, shared by every composition of a gateway. {@code server.read-ahead} bounds one
 * part; this bounds them all together, so that many clients that never read cannot make the gateway
 * hold more than this however many they are.
 *
 * <p>An engine takes bytes from it before it reads a part's body from the upstream (the reactive
 * engine a socket read's worth, the blocking engines a part's ring) and gives them back as they are
 * written to the client, or when the composition ends, fails or is cancelled. When the budget is
 * spent, a part waits: it reads nothing more, and its upstream connection holds the rest (TCP
 * backpressure). Waiters are served first come, first served, each with exactly what it asked for,
 * so a large request is not starved by small ones.
 *
 * <pre>
 *   acquire(n) ──► taken now           (nobody waits and n is available)
 *              ──► wait in line        ──► granted(): n taken on the waiter's behalf, when released bytes make room
 *                                       ──► cancel(): left the line (the part is over)
 *   release(n) ◄── bytes written to the client, or freed
 * </pre>
 *
 * <p>Nothing here times a wait: a part waiting for budget is a part whose bytes have not arrived, and
 * its composition's deadline (the route's {@code timeout}, the part's own) ends the wait as it ends
 * any other ({@code null}, a 504, or an aborted response), which frees what that composition held.
 * So a composition queued behind clients that never read makes progress, or fails cleanly, within
 * its timeout.
 *
 * <p>Waiting in this line one read at a time deadlocks compositions: parts that wait for their turn
 * to be written can hold the budget whole while the part each composition relays waits behind them.
 * So every engine goes through {@link CompositionBudget}: only admissions (a composition's
 * floor of read shares) wait in the line; parts draw on their composition's floor when the plan waits
 * on them, and otherwise only {@link #tryAcquire} (which fails while anyone waits) and read nothing
 * until room comes back.
 *
 * <p>Thread-safe. {@link Grant#granted(long)} runs on the thread that released the bytes, never under the
 * budget's monitor; it must only hand the news over (schedule a task, signal a waiter).
 */
public final class ReadAheadBudget {

    /** Whoever waits for bytes: told once, when they have been taken for it. */
    public interface Grant {
        /** {@code bytes} (what it asked for) are taken for it: it gives them back when done. */
        void granted(long bytes);
    }

    /** The smallest budget a configuration may set: a few compositions' parts at once. */
    public static final long MIN_BYTES = ServerLimits.MIN_READ_AHEAD;

    /** The share of the JVM's memory an {@code auto} budget takes: a quarter. */
    private static final int AUTO_SHARE = 4;

    private final long capacity;
    private final AtomicLong available;
    // guarded by itself: a monitor rather than a ReentrantLock, whose contended lock() parks through
    // LockSupport, which an event loop must not (BlockHound refuses it); the critical sections are a
    // few instructions, and virtual threads do not pin on monitors since JDK 24
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private volatile int waiting; // waiters.size(), read without the monitor

    private record Waiter(long bytes, Grant grant) {}

    private record Granted(long bytes, Grant grant) {}

    /** A budget of {@code capacity} bytes (at least 1). */
    public ReadAheadBudget(long capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: > 0)");
        }
        this.capacity = capacity;
        this.available = new AtomicLong(capacity);
    }

    /** The budget {@code server} asks for: its {@code limits.max-read-ahead}, or {@link #auto}. */
    public static ReadAheadBudget of(ServerConfig server) {
        long bytes = server.limits().maxReadAhead();
        return new ReadAheadBudget(bytes == ServerLimits.AUTO ? auto(server.readAhead()) : bytes);
    }

    /**
     * {@code max-read-ahead: auto}: a quarter of the smaller of the JVM's heap and its direct memory
     * (the blocking engines read ahead into the heap, the reactive engine into direct buffers; their
     * limits are {@code -Xmx} and {@code -XX:MaxDirectMemorySize}, the heap's when not set), and at
     * least {@link #MIN_BYTES} and four parts' read-ahead.
     */
    public static long auto(int readAhead) {
        long heap = Runtime.getRuntime().maxMemory();
        long direct = maxDirectMemory().orElse(heap);
        long memory = heap == Long.MAX_VALUE ? direct : Math.min(heap, direct);
        return Math.max(Math.max(MIN_BYTES, 4L * readAhead), memory / AUTO_SHARE);
    }

    /** {@code -XX:MaxDirectMemorySize} when it is set; empty when it is not (then it is the heap's). */
    static java.util.OptionalLong maxDirectMemory() {
        try {
            var bean = java.lang.management.ManagementFactory.getPlatformMXBean(
                    com.sun.management.HotSpotDiagnosticMXBean.class);
            long value = Long.parseLong(bean.getVMOption("MaxDirectMemorySize").getValue());
            return value > 0 ? java.util.OptionalLong.of(value) : java.util.OptionalLong.empty();
        } catch (RuntimeException | LinkageError e) { // not HotSpot, or no such option
            return java.util.OptionalLong.empty();
        }
    }

    /** Its size in bytes. */
    public long capacity() {
        return capacity;
    }

    /** Bytes nobody holds now (below zero only after {@link #take} went past the budget). */
    public long available() {
        return available.get();
    }

    /** Bytes held now. */
    public long held() {
        return capacity - available.get();
    }

    /** How many wait for bytes now. */
    public int waiting() {
        return waiting;
    }

    /** {@code bytes} clamped to the budget: what one request for {@code bytes} may ask at most. */
    public long fit(long bytes) {
        return Math.min(bytes, capacity);
    }

    /**
     * Takes {@code bytes} now if nobody waits and they are available.
     *
     * @return whether they were taken (then the caller gives them back with {@link #release})
     */
    public boolean tryAcquire(long bytes) {
        check(bytes);
        return waiting == 0 && takeIfAvailable(bytes);
    }

    /**
     * Takes {@code bytes} now if it can ({@link #tryAcquire}); else {@code grant} waits in line and is
     * told once they have been taken on its behalf, unless it {@link #cancel}s first.
     *
     * @return whether they were taken now; false: {@code grant.granted()} follows, on another call
     */
    public boolean acquire(long bytes, Grant grant) {
        check(bytes);
        if (waiting == 0 && takeIfAvailable(bytes)) {
            return true;
        }
        List<Granted> granted;
        synchronized (waiters) {
            waiters.add(new Waiter(bytes, grant));
            waiting = waiters.size();
            granted = serve(); // bytes released since the check above are not missed
        }
        boolean now = false; // served at once: released bytes made room meanwhile
        List<Granted> others = new ArrayList<>(granted.size());
        for (Granted g : granted) {
            if (g.grant == grant) {
                now = true;
            } else {
                others.add(g);
            }
        }
        tell(others);
        return now;
    }

    /**
     * {@code grant} no longer wants bytes (its part is over).
     *
     * @return whether it was in line and left it; false: it was not (its bytes were taken, and it is
     *     or will be told: it gives them back)
     */
    public boolean cancel(Grant grant) {
        List<Granted> granted;
        boolean removed = false;
        synchronized (waiters) {
            for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
                if (it.next().grant == grant) {
                    it.remove();
                    removed = true;
                    break;
                }
            }
            waiting = waiters.size();
            granted = removed ? serve() : List.of(); // the next in line may fit now
        }
        tell(granted);
        return removed;
    }

    /**
     * Takes {@code bytes} whether or not they are available: for bytes an engine already holds
     * beyond what it took (a socket read that gave more than the read's share). Given back with
     * {@link #release} like any other.
     */
    public void take(long bytes) {
        if (bytes > 0) {
            available.addAndGet(-bytes);
        }
    }

    /** Gives back {@code bytes} taken before; whoever waits first in line and now fits is served. */
    public void release(long bytes) {
        if (bytes <= 0) {
            return;
        }
        long now = available.addAndGet(bytes);
        if (now > capacity) {
            available.addAndGet(-bytes);
            throw new IllegalStateException("released " + bytes + " bytes more than were taken (budget " + capacity
                    + ", available " + (now - bytes) + ")");
        }
        if (waiting == 0) {
            return;
        }
        List<Granted> granted;
        synchronized (waiters) {
            granted = serve();
        }
        tell(granted);
    }

    private void check(long bytes) {
        if (bytes < 1 || bytes > capacity) {
            throw new IllegalArgumentException(
                    "bytes: " + bytes + " (expected: 1.." + capacity + ", the budget; see fit())");
        }
    }

    private boolean takeIfAvailable(long bytes) {
        for (long a = available.get(); a >= bytes; a = available.get()) {
            if (available.compareAndSet(a, a - bytes)) {
                return true;
            }
        }
        return false;
    }

    /** Holding the monitor: takes bytes for the waiters at the head of the line while they fit. */
    private List<Granted> serve() {
        List<Granted> granted = List.of();
        Waiter head;
        while ((head = waiters.peekFirst()) != null && takeIfAvailable(head.bytes)) {
            waiters.pollFirst();
            if (granted.isEmpty()) {
                granted = new ArrayList<>(2);
            }
            granted.add(new Granted(head.bytes, head.grant));
        }
        waiting = waiters.size();
        return granted;
    }

    private static void tell(List<Granted> granted) {
        for (Granted g : granted) {
            g.grant.granted(g.bytes);
        }
    }

    @Override
    public String toString() {
        return "ReadAheadBudget[" + held() + " of " + capacity + " bytes held, " + waiting + " waiting]";
    }
}
