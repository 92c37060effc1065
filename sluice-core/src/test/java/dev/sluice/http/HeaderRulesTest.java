package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeaderRulesTest {

    private final HeaderRules rules = HeaderRules.of(List.of(
            new FilterConfig.RequestHeaders(Map.of("X-Api-Key", "k"), List.of("Cookie")),
            new FilterConfig.ResponseHeaders(Map.of("X-Served-By", "sluice"), List.of("Server"))));

    @Test
    void requestHeadersAreCopiedUnlessRewrittenDroppedSetOrHopByHop() {
        assertThat(rules.forwardRequest("Accept", null)).isTrue();
        assertThat(rules.forwardRequest("X-Custom", "keep-alive")).isTrue();
        for (String name : List.of(
                "Host",
                "content-length",
                "Transfer-Encoding",
                "X-Forwarded-For",
                "cookie",
                "x-api-key",
                "Connection",
                "Keep-Alive",
                "TE",
                "Upgrade",
                "Proxy-Authorization")) {
            assertThat(rules.forwardRequest(name, null)).as(name).isFalse();
        }
    }

    @Test
    void theNamesAnHttp2LibraryAddsInConversionAreNeverForwarded() {
        for (String name :
                List.of("x-http2-scheme", "X-Http2-Stream-Id", "x-http2-path", "x-http2-stream-dependency-id")) {
            assertThat(rules.forwardRequest(name, null)).as(name).isFalse();
        }
        assertThat(rules.forwardRequest("x-http2-other", null)).isTrue();
    }

    @Test
    void headersThatConnectionListsAreHopByHopInAnyCase() {
        assertThat(rules.forwardRequest("X-Trace", "keep-alive, x-trace")).isFalse();
        assertThat(rules.forwardRequest("x-trace", "Keep-Alive,X-TRACE")).isFalse();
        assertThat(rules.forwardResponse("X-Hop", " x-hop ")).isFalse();
        assertThat(rules.forwardResponse("X-Hop", "close")).isTrue();
    }

    @Test
    void responseHeadersKeepContentLengthAndLoseFramingDropsSetsAndHopByHop() {
        assertThat(rules.forwardResponse("Content-Type", null)).isTrue();
        assertThat(rules.forwardResponse("Content-Length", null)).isTrue();
        for (String name : List.of("Transfer-Encoding", "server", "X-Served-By", "Connection", "Trailer")) {
            assertThat(rules.forwardResponse(name, null)).as(name).isFalse();
        }
        assertThat(rules.responseSets()).containsEntry("X-Served-By", "sluice");
    }

    @Test
    void aComposedResponseIsJsonUnlessTheRouteRemovesOrSetsItsType() {
        assertThat(HeaderRules.of(List.of()).composedResponseHeaders())
                .containsExactly(Map.entry("Content-Type", "application/json"));
        assertThat(HeaderRules.of(
                                List.of(new FilterConfig.ResponseHeaders(Map.of("X-A", "1"), List.of("Content-Type"))))
                        .composedResponseHeaders())
                .containsExactly(Map.entry("X-A", "1"));
        assertThat(HeaderRules.of(List.of(new FilterConfig.ResponseHeaders(
                                Map.of("content-type", "application/vnd.x+json"), List.of())))
                        .composedResponseHeaders())
                .containsExactly(Map.entry("content-type", "application/vnd.x+json"));
    }
}
