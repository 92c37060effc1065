package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class GrpcStatusTest {

    @Test
    void grpcContentTypesAreTold() {
        assertThat(GrpcStatus.isGrpc("application/grpc")).isTrue();
        assertThat(GrpcStatus.isGrpc("application/grpc+proto")).isTrue();
        assertThat(GrpcStatus.isGrpc("Application/GRPC; charset=utf-8")).isTrue();
        assertThat(GrpcStatus.isGrpc("application/grpc-web")).isFalse();
        assertThat(GrpcStatus.isGrpc("application/grpcx")).isFalse();
        assertThat(GrpcStatus.isGrpc("application/json")).isFalse();
        assertThat(GrpcStatus.isGrpc(null)).isFalse();
    }

    @Test
    void gatewayAnswersMapAsEnvoyMapsThem() {
        assertThat(GrpcStatus.of(401)).isEqualTo(16);
        assertThat(GrpcStatus.of(403)).isEqualTo(7);
        assertThat(GrpcStatus.of(404)).isEqualTo(12);
        assertThat(GrpcStatus.of(429)).isEqualTo(8);
        assertThat(GrpcStatus.of(502)).isEqualTo(14);
        assertThat(GrpcStatus.of(503)).isEqualTo(14);
        assertThat(GrpcStatus.of(504)).isEqualTo(4);
        assertThat(GrpcStatus.of(400)).isEqualTo(13);
        assertThat(GrpcStatus.of(500)).isEqualTo(13);
        assertThat(GrpcStatus.of(UpstreamFailure.CIRCUIT_OPEN.status())).isEqualTo(GrpcStatus.UNAVAILABLE);
        assertThat(GrpcStatus.of(UpstreamFailure.REFUSED.status())).isEqualTo(GrpcStatus.UNAVAILABLE);
    }

    @Test
    void grpcTimeoutIsReadInEveryUnitAndAMalformedOneIgnored() {
        assertThat(GrpcStatus.timeout("300m")).hasValue(Duration.ofMillis(300));
        assertThat(GrpcStatus.timeout("2S")).hasValue(Duration.ofSeconds(2));
        assertThat(GrpcStatus.timeout("1H")).hasValue(Duration.ofHours(1));
        assertThat(GrpcStatus.timeout("5M")).hasValue(Duration.ofMinutes(5));
        assertThat(GrpcStatus.timeout("7u")).hasValue(Duration.ofNanos(7000));
        assertThat(GrpcStatus.timeout("99999999n")).hasValue(Duration.ofNanos(99_999_999));
        assertThat(GrpcStatus.timeout("123456789n")).isEmpty(); // 9 digits
        assertThat(GrpcStatus.timeout("10")).isEmpty();
        assertThat(GrpcStatus.timeout("-1S")).isEmpty();
        assertThat(GrpcStatus.timeout("S")).isEmpty();
        assertThat(GrpcStatus.timeout(null)).isEmpty();
    }

    @Test
    void theShorterOfTheRoutesTimeoutAndTheCallsDeadlineWins() {
        Optional<Duration> route = Optional.of(Duration.ofSeconds(5));
        assertThat(GrpcStatus.deadline(route, "1S")).hasValue(Duration.ofSeconds(1));
        assertThat(GrpcStatus.deadline(route, "10S")).hasValue(Duration.ofSeconds(5));
        assertThat(GrpcStatus.deadline(Optional.empty(), "10S")).hasValue(Duration.ofSeconds(10));
        assertThat(GrpcStatus.deadline(route, null)).isEqualTo(route);
    }

    @Test
    void messagesArePercentEncodedAndReadFromAnErrorBody() {
        assertThat(GrpcStatus.message("no route for POST /a.B/C")).isEqualTo("no route for POST /a.B/C");
        assertThat(GrpcStatus.message("50% ü\n")).isEqualTo("50%25 %C3%BC%0A");
        byte[] body = ErrorBody.of(404, "not_found", "no route for \"x\"");
        assertThat(GrpcStatus.messageOf(body, "fallback")).isEqualTo("no route for \"x\"");
        assertThat(GrpcStatus.messageOf("{}".getBytes(StandardCharsets.UTF_8), "fallback"))
                .isEqualTo("fallback");
    }

    @Test
    void theGatewaysOwnAnswerHeadIsDecidedOnce() {
        java.util.Map<String, String> head = new java.util.LinkedHashMap<>();
        int code = GrpcStatus.answerHead(404, "no route for \"x\"", "application/grpc+proto", head::put);
        assertThat(code).isEqualTo(GrpcStatus.UNIMPLEMENTED);
        assertThat(head)
                .containsEntry(GrpcStatus.STATUS_HEADER, "12")
                .containsEntry(GrpcStatus.MESSAGE_HEADER, GrpcStatus.message("no route for \"x\""))
                .containsKey("content-type");
        java.util.Map<String, String> quiet = new java.util.LinkedHashMap<>();
        GrpcStatus.answerHead(500, "", "application/grpc", quiet::put);
        assertThat(quiet).as("no grpc-message for an empty one").doesNotContainKey(GrpcStatus.MESSAGE_HEADER);
        assertThat(GrpcStatus.answeredWithStatus("application/grpc")).isTrue();
        assertThat(GrpcStatus.answeredWithStatus("application/grpc-web+proto")).isTrue();
        assertThat(GrpcStatus.answeredWithStatus("application/json")).isFalse();
        assertThat(GrpcStatus.answeredWithStatus(null)).isFalse();
    }
}
