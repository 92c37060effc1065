package dev.sluice.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.RequestId;
import org.junit.jupiter.api.Test;

class RefusedHeadTest {

    @Test
    void aHeadWhoseRequestLineWasReadIsReportedWithItsMethodAndPathWithoutQuery() {
        ExchangeEvent event = RefusedHead.event(400, "POST", "/up/x?token=secret", "10.0.0.7", 1234, 87);

        assertThat(event.route()).isEmpty();
        assertThat(event.method()).isEqualTo("POST");
        assertThat(event.path()).isEqualTo("/up/x");
        assertThat(event.status()).isEqualTo(400);
        assertThat(event.refusedBy()).isEqualTo(RefusedHead.REQUEST_FRAMING);
        assertThat(event.client()).isEqualTo("10.0.0.7");
        assertThat(event.durationNanos()).isEqualTo(1234);
        assertThat(event.bytesIn()).isZero();
        assertThat(event.bytesOut()).isEqualTo(87);
        assertThat(event.upstreamNanos()).isEqualTo(-1);
        assertThat(event.traceId()).isEqualTo("-");
        assertThat(event.aborted()).isFalse();
        assertThat(event.parts()).isEmpty();
        assertThat(RequestId.isSane(event.requestId())).isTrue();
    }

    @Test
    void anUnreadLineAControlByteANonTokenMethodOrAnotherVersionIsReportedAsDashes() {
        assertThat(RefusedHead.event(414, null, null, "c", 0, 0))
                .extracting(ExchangeEvent::method, ExchangeEvent::path)
                .containsExactly("-", "-");
        assertThat(RefusedHead.event(400, "GET", "/a\u0000b", "c", 0, 0))
                .extracting(ExchangeEvent::method, ExchangeEvent::path)
                .containsExactly("-", "-");
        assertThat(RefusedHead.event(400, "GET", "/a\r\nX-Forged: 1", "c", 0, 0).path())
                .as("nothing that could break a log line")
                .isEqualTo("-");
        assertThat(RefusedHead.event(400, "G(E)T", "/a", "c", 0, 0).method()).isEqualTo("-");
        assertThat(RefusedHead.event(414, "GET", "/" + "a".repeat(10_000), "c", 0, 0))
                .as("a target over the limit is not logged, even when the parser read it")
                .extracting(ExchangeEvent::method, ExchangeEvent::path)
                .containsExactly("-", "-");
        assertThat(RefusedHead.event(505, "GET", "/a", "c", 0, 0))
                .extracting(ExchangeEvent::method, ExchangeEvent::path)
                .containsExactly("-", "-");
        assertThat(RefusedHead.event(400, "GET", "?q", "c", 0, 0).path()).isEqualTo("-");
    }

    @Test
    void whatServerLimitsBoundsIsRefusedByServerLimits() {
        assertThat(RefusedHead.refusedBy(408)).isEqualTo("server-limits");
        assertThat(RefusedHead.refusedBy(413)).isEqualTo("server-limits");
        assertThat(RefusedHead.refusedBy(414)).isEqualTo("server-limits");
        assertThat(RefusedHead.refusedBy(431)).isEqualTo("server-limits");
        assertThat(RefusedHead.refusedBy(400)).isEqualTo("request-framing");
        assertThat(RefusedHead.refusedBy(501)).isEqualTo("request-framing");
        assertThat(RefusedHead.refusedBy(505)).isEqualTo("request-framing");
    }

    @Test
    void eachRefusalGetsItsOwnRequestId() {
        assertThat(RefusedHead.event(400, "GET", "/", "c", 0, 0).requestId())
                .isNotEqualTo(RefusedHead.event(400, "GET", "/", "c", 0, 0).requestId());
    }
}
