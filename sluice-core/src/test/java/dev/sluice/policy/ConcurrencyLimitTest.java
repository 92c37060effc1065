package dev.sluice.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.policy.Decision.Pending;
import dev.sluice.policy.Decision.Proceed;
import dev.sluice.policy.Decision.Reject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConcurrencyLimitTest {

    static final InboundPolicy.Inbound REQUEST =
            new GivenRequest("GET", "/slow", "slow", null, "127.0.0.1", Map.of(), Map.of());

    @Test
    void admitsUpToMaxQueuesUpToQueueAndRejectsBeyond() {
        ConcurrencyLimit limit = new ConcurrencyLimit(2, 1, Duration.ofSeconds(30));
        Decision a = limit.admit(REQUEST);
        Decision b = limit.admit(REQUEST);
        Decision c = limit.admit(REQUEST);
        Decision d = limit.admit(REQUEST);
        assertThat(a).isInstanceOf(Proceed.class);
        assertThat(b).isInstanceOf(Proceed.class);
        assertThat(c).isInstanceOf(Pending.class);
        assertThat(d).isInstanceOfSatisfying(Reject.class, r -> {
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.code()).isEqualTo("overloaded");
            assertThat(r.headers()).containsEntry("Retry-After", "1");
        });
        assertThat(limit.inFlight()).isEqualTo(2);
        assertThat(limit.waiting()).isEqualTo(1);

        ((Proceed) a).permit().release(); // hands the slot to the waiter
        CompletableFuture<Decision> waited = ((Pending) c).decision().toCompletableFuture();
        assertThat(waited).isCompleted();
        assertThat(waited.join()).isInstanceOf(Proceed.class);
        assertThat(limit.inFlight()).isEqualTo(2);
        assertThat(limit.waiting()).isZero();

        ((Proceed) a).permit().release(); // a second release does nothing
        assertThat(limit.inFlight()).isEqualTo(2);
        ((Proceed) b).permit().release();
        ((Proceed) waited.join()).permit().release();
        assertThat(limit.inFlight()).isZero();
    }

    @Test
    void aWaiterGivesUpAtTheQueueTimeoutAndLeavesTheQueue() throws Exception {
        ConcurrencyLimit limit = new ConcurrencyLimit(1, 1, Duration.ofMillis(50));
        Decision held = limit.admit(REQUEST);
        Pending waiting = (Pending) limit.admit(REQUEST);
        Decision late = waiting.decision().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(late)
                .isInstanceOfSatisfying(
                        Reject.class, r -> assertThat(r.message()).contains("queue-timeout"));
        assertThat(limit.waiting()).isZero();
        ((Proceed) held).permit().release();
        assertThat(limit.inFlight()).isZero();
    }

    @Test
    void anAbandonedWaiterNeverHoldsASlot() {
        ConcurrencyLimit limit = new ConcurrencyLimit(1, 2, Duration.ofSeconds(30));
        Proceed held = (Proceed) limit.admit(REQUEST);
        Pending gone = (Pending) limit.admit(REQUEST);
        Pending next = (Pending) limit.admit(REQUEST);
        gone.abandon(); // its client went away
        held.permit().release();
        assertThat(next.decision().toCompletableFuture().join()).isInstanceOf(Proceed.class);
        assertThat(limit.inFlight()).isEqualTo(1);
    }

    @Test
    void aChainReleasesEarlierPermitsWhenALaterPolicyRejects() {
        AtomicInteger released = new AtomicInteger();
        InboundPolicy first = request -> new Proceed(released::incrementAndGet);
        InboundPolicy no = request -> new Reject(403, "forbidden", "no", Map.of());
        Decision decision = new PolicyChain(new InboundPolicy[] {first, no}).admit(REQUEST);
        assertThat(decision).isInstanceOf(Reject.class);
        assertThat(released).hasValue(1);
    }

    @Test
    void aChainResumesAfterAPendingPolicyAndHoldsEveryPermit() {
        ConcurrencyLimit limit = new ConcurrencyLimit(1, 1, Duration.ofSeconds(30));
        AtomicInteger released = new AtomicInteger();
        InboundPolicy after = request -> new Proceed(released::incrementAndGet);
        PolicyChain chain = new PolicyChain(new InboundPolicy[] {limit, after});
        Proceed first = (Proceed) chain.admit(REQUEST);
        Pending second = (Pending) chain.admit(REQUEST);
        first.permit().release();
        assertThat(released).hasValue(1);
        Proceed resumed = (Proceed) second.decision().toCompletableFuture().join();
        resumed.permit().release();
        assertThat(released).hasValue(2);
        assertThat(limit.inFlight()).isZero();
    }

    @Test
    void abandoningAChainsPendingDecisionReleasesWhatItHeld() {
        AtomicInteger released = new AtomicInteger();
        InboundPolicy before = request -> new Proceed(released::incrementAndGet);
        ConcurrencyLimit limit = new ConcurrencyLimit(1, 1, Duration.ofSeconds(30));
        Proceed held = (Proceed) limit.admit(REQUEST);
        Pending pending = (Pending) new PolicyChain(new InboundPolicy[] {before, limit}).admit(REQUEST);
        pending.abandon();
        assertThat(released).as("the earlier policy's permit").hasValue(1);
        assertThat(limit.waiting()).isZero();
        held.permit().release();
        assertThat(limit.inFlight()).isZero();
    }

    @Test
    void manyThreadsNeverExceedMax() throws Exception {
        ConcurrencyLimit limit = new ConcurrencyLimit(3, 1000, Duration.ofSeconds(30));
        AtomicInteger now = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        List<Thread> threads = new java.util.ArrayList<>();
        for (int t = 0; t < 8; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 2000; i++) {
                    Decision d = limit.admit(REQUEST);
                    Proceed p = d instanceof Pending w
                            ? (Proceed) w.decision().toCompletableFuture().join()
                            : (Proceed) d;
                    peak.accumulateAndGet(now.incrementAndGet(), Math::max);
                    now.decrementAndGet();
                    p.permit().release();
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(peak.get()).isLessThanOrEqualTo(3);
        assertThat(limit.inFlight()).isZero();
        assertThat(limit.waiting()).isZero();
    }
}
