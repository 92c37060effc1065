package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import dev.sluice.config.RouteMatch;
import dev.sluice.config.ServerLimits;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BodyLimitTest {

    private static final ServerLimits TEN =
            new ServerLimits(8192, 16384, 100, 10, Duration.ofSeconds(10), Duration.ofSeconds(60), 10_000, 0);

    private static RouteConfig route(FilterConfig... filters) {
        return new RouteConfig(
                "r",
                RouteMatch.path("/r/**"),
                new ProxyTarget("app", Optional.empty(), Optional.empty(), Optional.empty()),
                List.of(filters));
    }

    @Test
    void aRoutesMaxBodyOverridesTheServersEitherWay() {
        assertThat(BodyLimit.of(route(), TEN)).isEqualTo(10);
        assertThat(BodyLimit.of(route(new FilterConfig.MaxBody(5)), TEN)).isEqualTo(5);
        assertThat(BodyLimit.of(route(new FilterConfig.MaxBody(1_000_000)), TEN))
                .isEqualTo(1_000_000);
        assertThat(BodyLimit.of(route(new FilterConfig.MaxBody(ServerLimits.UNLIMITED)), TEN))
                .isEqualTo(ServerLimits.UNLIMITED);
        assertThat(BodyLimit.of(route(), ServerLimits.defaults())).isEqualTo(ServerLimits.UNLIMITED);
    }

    @Test
    void aDeclaredLengthOverTheLimitIs413AndAtItPasses() {
        assertThat(BodyLimit.check(10, 10)).isEmpty();
        assertThat(BodyLimit.check(-1, 10)).as("no Content-Length").isEmpty();
        RequestFraming.Rejection over = BodyLimit.check(11, 10).orElseThrow();
        assertThat(over.status()).isEqualTo(413);
        assertThat(over.code()).isEqualTo("content_too_large");
        assertThat(over.reason()).contains("10 bytes");
        assertThat(BodyLimit.check(Long.MAX_VALUE, ServerLimits.UNLIMITED)).isEmpty();
    }

    @Test
    void aBodyExceedsItsLimitOnlyPastIt() {
        assertThat(BodyLimit.exceeds(10, 10)).isFalse();
        assertThat(BodyLimit.exceeds(11, 10)).isTrue();
        assertThat(BodyLimit.exceeds(Long.MAX_VALUE, ServerLimits.UNLIMITED)).isFalse();
        assertThat(new BodyLimit.Exceeded(10).rejection().status()).isEqualTo(413);
    }

    @Test
    void aHeadOverTheRequestLineOrFieldCountIsRefused() {
        ServerLimits limits = new ServerLimits(
                100, 16384, 3, ServerLimits.UNLIMITED, Duration.ofSeconds(1), Duration.ofSeconds(1), 1, 0);
        assertThat(RequestFraming.checkSize(100, 3, limits)).isEmpty();
        assertThat(RequestFraming.checkSize(101, 3, limits).orElseThrow().status())
                .isEqualTo(414);
        RequestFraming.Rejection fields =
                RequestFraming.checkSize(100, 4, limits).orElseThrow();
        assertThat(fields.status()).isEqualTo(431);
        assertThat(fields.reason()).contains("more than 3 header fields");
    }

    @Test
    void theWireAnswerIsAWholeHttpResponseThatCloses() {
        String wire = new String(
                RequestFraming.Rejection.forParserStatus(408).wire(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(wire).startsWith("HTTP/1.1 408 request timeout\r\n");
        assertThat(wire).contains("Connection: close\r\n");
        String body = wire.substring(wire.indexOf("\r\n\r\n") + 4);
        assertThat(wire).contains("Content-Length: " + body.length() + "\r\n");
        assertThat(body)
                .isEqualTo(
                        "{\"status\":408,\"error\":\"request_timeout\",\"message\":\"the request was not received in time\"}");
    }
}
