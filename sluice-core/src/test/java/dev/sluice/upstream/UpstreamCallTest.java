package dev.sluice.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.config.UpstreamResilience;
import dev.sluice.config.UpstreamResilience.Balance;
import dev.sluice.config.UpstreamResilience.CircuitBreaker;
import dev.sluice.config.UpstreamResilience.Retry;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.upstream.UpstreamCall.Action;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every transition of the try loop, with time driven by the test's ticker. */
class UpstreamCallTest {

    private static final List<URI> TWO = List.of(URI.create("http://10.0.0.1:80"), URI.create("http://10.0.0.2:80"));

    private long nanos = 1_000_000_000L;

    private UpstreamGuard guard(Optional<Retry> retry) {
        return guard(retry, Optional.empty());
    }

    private UpstreamGuard guard(Optional<Retry> retry, Optional<CircuitBreaker> breaker) {
        UpstreamResilience r =
                new UpstreamResilience(TWO, Balance.ROUND_ROBIN, Optional.empty(), Optional.empty(), retry, breaker);
        UpstreamConfig config = UpstreamConfig.of("svc", TWO.getFirst()).withResilience(r);
        return new UpstreamGuard(config, () -> nanos, Clock.systemUTC(), () -> 0.5, false);
    }

    private static Optional<Retry> retry(int attempts, String... on) {
        return Optional.of(new Retry(
                attempts,
                Optional.of(Duration.ofMillis(100)),
                Duration.ofMillis(20),
                Duration.ofMillis(200),
                Set.of(on),
                false,
                100,
                10,
                1024));
    }

    private UpstreamCall call(UpstreamGuard guard, String method, long bodyLength) {
        return new UpstreamCall(guard, method, bodyLength, () -> nanos);
    }

    @Test
    void aTryAnsweredIsRelayedAndLateSignalsAreIgnored() {
        UpstreamCall call = call(guard(Optional.empty()), "GET", 0);
        Action send = call.next();
        assertThat(send).isInstanceOf(Action.Send.class);
        assertThat(((Action.Send) send).attempt().number()).isEqualTo(1);
        assertThat(call.trying()).isTrue();
        nanos += 7;
        assertThat(call.answered(200)).isEqualTo(new Action.Relay(200));
        assertThat(call.elapsedNanos()).isEqualTo(7);
        assertThat(call.trying()).isFalse();
        assertThat(call.expired()).as("the timer that fired as the head came").isSameAs(Action.Ignore.INSTANCE);
        assertThat(call.next()).as("no try after the call ended").isSameAs(Action.Ignore.INSTANCE);
        assertThat(call.decision()).isEqualTo(new Action.Relay(200));
    }

    @Test
    void aStaleConnectionIsResentOncePerTry() {
        UpstreamCall call = call(guard(retry(2, "503")), "GET", 0);
        Attempt first = ((Action.Send) call.next()).attempt();
        assertThat(call.failed(UpstreamFailure.RESET, false)).isEqualTo(new Action.Resend(first));
        assertThat(call.answered(503))
                .as("the resent try answered 503: retried")
                .isEqualTo(new Action.RetryAfter(Duration.ofMillis(10).toNanos()));
        assertThat(call.failed(UpstreamFailure.RESET, false))
                .as("the dropped try's late error")
                .isSameAs(Action.Ignore.INSTANCE);
        Attempt second = ((Action.Send) call.next()).attempt();
        assertThat(second.number()).isEqualTo(2);
        assertThat(second.endpoint()).isNotEqualTo(first.endpoint());
        assertThat(call.failed(UpstreamFailure.RESET, false))
                .as("the allowance is per try: the retry's stale connection is resent too")
                .isEqualTo(new Action.Resend(second));
        assertThat(call.failed(UpstreamFailure.RESET, false))
                .as("but only once, and the last try fails")
                .isEqualTo(new Action.Fail(UpstreamFailure.RESET));
    }

    @Test
    void onlyABodylessIdempotentRequestIsResentAndOnlyOnAReset() {
        UpstreamGuard guard = guard(Optional.empty());
        UpstreamCall post = call(guard, "POST", 0);
        post.next();
        assertThat(post.failed(UpstreamFailure.RESET, false)).isEqualTo(new Action.Fail(UpstreamFailure.RESET));
        UpstreamCall put = call(guard, "PUT", 12);
        put.next();
        assertThat(put.failed(UpstreamFailure.RESET, false)).isEqualTo(new Action.Fail(UpstreamFailure.RESET));
        UpstreamCall answered = call(guard, "GET", 0);
        answered.next();
        assertThat(answered.failed(UpstreamFailure.RESET, true))
                .as("after a byte of an answer")
                .isEqualTo(new Action.Fail(UpstreamFailure.RESET));
        for (UpstreamFailure other : UpstreamFailure.values()) {
            if (other != UpstreamFailure.RESET) {
                UpstreamCall c = call(guard, "GET", 0);
                c.next();
                assertThat(c.failed(other, false)).isEqualTo(new Action.Fail(other));
            }
        }
    }

    @Test
    void anExpiredTryIsRetriedWhenTimeoutsAreListedElseFailsAsAReadTimeout() {
        UpstreamCall retried = call(guard(retry(2, "timeout")), "GET", 0);
        assertThat(((Action.Send) retried.next()).timeoutNanos())
                .isEqualTo(Duration.ofMillis(100).toNanos());
        assertThat(retried.perTryTimeoutNanos())
                .isEqualTo(Duration.ofMillis(100).toNanos());
        assertThat(retried.expired()).isInstanceOf(Action.RetryAfter.class);
        assertThat(retried.answered(200)).as("the dropped try's late head").isSameAs(Action.Ignore.INSTANCE);
        retried.next();
        assertThat(retried.expired()).as("out of attempts").isEqualTo(new Action.Fail(UpstreamFailure.READ_TIMEOUT));

        UpstreamCall failed = call(guard(retry(2, "503")), "GET", 0);
        failed.next();
        assertThat(failed.expired()).isEqualTo(new Action.Fail(UpstreamFailure.READ_TIMEOUT));
    }

    @Test
    void aFailureBeforeAnAnswerIsRetriedOnlyWhenListed() {
        UpstreamCall call = call(guard(retry(3, "connect-failure")), "GET", 0);
        call.next();
        assertThat(call.failed(UpstreamFailure.REFUSED, false)).isInstanceOf(Action.RetryAfter.class);
        call.next();
        assertThat(call.failed(UpstreamFailure.BAD_RESPONSE, false))
                .isEqualTo(new Action.Fail(UpstreamFailure.BAD_RESPONSE));
    }

    @Test
    void aBodyIsHeldOnlyWhenItsDeclaredLengthFitsTheReplayBufferAndOnlyAHeldBodyIsRetried() {
        UpstreamGuard guard = guard(retry(2, "503"));
        UpstreamCall held = call(guard, "PUT", 1024);
        assertThat(held.holdsBody()).isTrue();
        held.next();
        assertThat(held.failed(UpstreamFailure.RESET, false))
                .as("a held body is not resent on a stale connection")
                .isEqualTo(new Action.Fail(UpstreamFailure.RESET));
        UpstreamCall heldAnswered = call(guard, "PUT", 10);
        heldAnswered.next();
        assertThat(heldAnswered.answered(503)).isInstanceOf(Action.RetryAfter.class);

        UpstreamCall streamed = call(guard, "PUT", 1025);
        assertThat(streamed.holdsBody()).isFalse();
        streamed.next();
        assertThat(streamed.answered(503)).isEqualTo(new Action.Relay(503));
        UpstreamCall chunked = call(guard, "PUT", -1);
        assertThat(chunked.holdsBody()).isFalse();
        assertThat(call(guard(Optional.empty()), "PUT", 10).holdsBody())
                .as("no retries configured")
                .isFalse();
    }

    @Test
    void aRelayedAnswerThatBreaksOffFailsTheCall() {
        UpstreamCall call = call(guard(Optional.empty()), "GET", 0);
        call.next();
        call.answered(200);
        assertThat(call.failed(UpstreamFailure.RESET, true)).isEqualTo(new Action.Fail(UpstreamFailure.RESET));
    }

    @Test
    void everyEndpointsBreakerOpenFailsTheCallAsCircuitOpen() {
        UpstreamGuard guard = guard(
                Optional.empty(),
                Optional.of(new CircuitBreaker(50, 100, Duration.ofSeconds(10), 2, 2, Duration.ofSeconds(30), 1)));
        for (int i = 0; i < 4; i++) {
            UpstreamCall c = call(guard, "GET", 0);
            c.next();
            c.answered(500);
        }
        UpstreamCall refused = call(guard, "GET", 0);
        assertThat(refused.next()).isEqualTo(new Action.Fail(UpstreamFailure.CIRCUIT_OPEN));
        assertThat(refused.attempt()).isNull();
    }

    @Test
    void anAbandonedCallTellsTheGuardNothingAndIgnoresWhatComesAfter() {
        UpstreamCall call = call(guard(retry(2, "503")), "GET", 0);
        Attempt a = ((Action.Send) call.next()).attempt();
        call.abandoned();
        assertThat(a.status()).isZero();
        assertThat(a.failure()).isNull();
        assertThat(call.answered(503)).isSameAs(Action.Ignore.INSTANCE);
        assertThat(call.next()).isSameAs(Action.Ignore.INSTANCE);
    }

    @Test
    void aFailedHeadMayBeRetriedThoughNotResent() {
        UpstreamCall call = call(guard(retry(2, "reset")), "GET", 0);
        call.next();
        assertThat(call.failed(UpstreamFailure.RESET, true))
                .as("a broken head: not a stale connection, but a reset the guard retries")
                .isInstanceOf(Action.RetryAfter.class);
    }

    @Test
    void aCallWithoutAGuardIsOneTryWithOnlyTheStaleConnectionsResend() {
        UpstreamCall call = UpstreamCall.single("GET", 0, () -> nanos);
        assertThat(call.next()).isEqualTo(new Action.Send(null, 0));
        assertThat(call.perTryTimeoutNanos()).isZero();
        assertThat(call.holdsBody()).isFalse();
        assertThat(call.failed(UpstreamFailure.RESET, false)).isEqualTo(new Action.Resend(null));
        assertThat(call.failed(UpstreamFailure.RESET, false)).isEqualTo(new Action.Fail(UpstreamFailure.RESET));
        assertThat(call.next()).isSameAs(Action.Ignore.INSTANCE);

        UpstreamCall answered = UpstreamCall.single("GET", 0, () -> nanos);
        answered.next();
        assertThat(answered.answered(503)).isEqualTo(new Action.Relay(503));
        UpstreamCall post = UpstreamCall.single("POST", -1, () -> nanos);
        post.next();
        assertThat(post.failed(UpstreamFailure.RESET, false)).isEqualTo(new Action.Fail(UpstreamFailure.RESET));
    }

    @Test
    void theIdempotentMethodsAreRfc9110s() {
        for (String m : List.of("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE")) {
            assertThat(UpstreamCall.idempotent(m)).as(m).isTrue();
        }
        for (String m : List.of("POST", "PATCH", "CONNECT", "get")) {
            assertThat(UpstreamCall.idempotent(m)).as(m).isFalse();
        }
    }
}
