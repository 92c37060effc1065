package dev.sluice.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InFlightLimitTest {

    private static final InboundPolicy.Inbound REQUEST = GivenRequest.from("127.0.0.1");

    @Test
    void beyondMaxARequestIsShedAtOnceAndAReleasedSlotComesBackOnce() {
        InFlightLimit limit = new InFlightLimit(2);
        Decision.Proceed a = (Decision.Proceed) limit.admit(REQUEST);
        Decision.Proceed b = (Decision.Proceed) limit.admit(REQUEST);
        Decision third = limit.admit(REQUEST);
        assertThat(third).isInstanceOf(Decision.Reject.class);
        Decision.Reject shed = (Decision.Reject) third;
        assertThat(shed.status()).isEqualTo(503);
        assertThat(shed.code()).isEqualTo("overloaded");
        assertThat(shed.headers()).containsEntry("Retry-After", "1");
        assertThat(limit.inFlight()).isEqualTo(2);
        a.permit().release();
        a.permit().release(); // twice: counted once
        assertThat(limit.inFlight()).isEqualTo(1);
        assertThat(limit.admit(REQUEST)).isInstanceOf(Decision.Proceed.class);
        assertThat(limit.admit(REQUEST)).isInstanceOf(Decision.Reject.class);
        b.permit().release();
        assertThat(limit.inFlight()).isEqualTo(1);
    }

    @Test
    void manyThreadsNeverHoldMoreThanMax() throws Exception {
        InFlightLimit limit = new InFlightLimit(3);
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger admitted = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 5_000; i++) {
                    if (limit.admit(REQUEST) instanceof Decision.Proceed p) {
                        admitted.incrementAndGet();
                        most.accumulateAndGet(holding.incrementAndGet(), Math::max);
                        holding.decrementAndGet();
                        p.permit().release();
                    }
                }
            }));
        }
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertThat(most.get()).isBetween(1, 3);
        assertThat(admitted.get()).isPositive();
        assertThat(limit.inFlight()).isZero();
    }

    @Test
    void theServersLimitIsAskedBeforeTheRoutesPolicies() {
        InFlightLimit limit = new InFlightLimit(1);
        AtomicInteger asked = new AtomicInteger();
        PolicyChain chain = new PolicyChain(new InboundPolicy[] {
                    r -> {
                        asked.incrementAndGet();
                        return Decision.Proceed.FREELY;
                    }
                })
                .after(limit);
        Decision.Proceed first = (Decision.Proceed) chain.admit(REQUEST);
        assertThat(chain.admit(REQUEST)).isInstanceOf(Decision.Reject.class);
        assertThat(asked.get())
                .as("the route's policy was not asked for the shed request")
                .isEqualTo(1);
        first.permit().release();
        assertThat(limit.inFlight()).isZero();
    }
}
