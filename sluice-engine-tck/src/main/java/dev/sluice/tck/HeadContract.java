package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static dev.sluice.tck.Routes.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget.Delivery;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code HEAD} on a route that serves {@code GET} (RFC 9110 §9.3.2), decided by the core's {@code
 * RouteTable}: proxied as {@code HEAD}; composed from the route's configuration alone ({@code
 * ComposedHead}), no part called, no body.
 */
public abstract class HeadContract extends ContractFixture {

    @Test
    void aProxiedHeadOnAGetRouteReachesTheUpstreamAsHeadAndHasNoBody() {
        try (TestGateway gw = gateway()
                .route("echo", on("/echo/**").methods("GET"), proxy(APP).build())
                .start()) {
            List<WireResponse> responses =
                    gw.wire().sendAll(List.of(WireRequest.of("HEAD", "/echo/x"), WireRequest.get("/echo/y")));
            WireResponse head = responses.get(0);
            assertThat(head.status()).as("%s", head).isEqualTo(200);
            assertThat(head.header("x-echo-method")).as("%s", head).contains("HEAD");
            assertThat(head.length()).isZero();
            WireResponse next = responses.get(1);
            assertThat(next.header("x-echo-method"))
                    .as("the connection carries on: the HEAD left no body bytes behind: %s", next)
                    .contains("GET");
        }
    }

    @Test
    void aComposedHeadAnswersTheHeadOfAGetWithoutCallingAnyPart() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page").methods("GET"),
                        compose().part("a", APP, "/json/10?tag=head-a").part("b", APP, "/json/10?tag=head-b"))
                .route(
                        "lines",
                        on("/lines").methods("GET"),
                        compose().delivery(Delivery.NDJSON, Delivery.SSE).part("a", APP, "/json/10?tag=head-c"))
                .start()) {
            List<WireResponse> responses = gw.wire()
                    .sendAll(List.of(
                            WireRequest.of("HEAD", "/page"),
                            WireRequest.of("HEAD", "/lines").header("Accept", "text/event-stream"),
                            WireRequest.get("/page")));
            WireResponse head = responses.get(0);
            assertThat(head.status()).as("%s", head).isEqualTo(200);
            assertThat(head.header("content-type"))
                    .as("%s", head)
                    .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
            assertThat(head.length()).isZero();
            assertThat(head.header("content-length"))
                    .as("a GET's composition is chunked: no length to announce: %s", head)
                    .isEmpty();
            WireResponse sse = responses.get(1);
            assertThat(sse.header("content-type")).as("%s", sse).contains("text/event-stream");
            assertThat(sse.header("vary")).as("%s", sse).contains("Accept");
            Composed.of(responses.get(2)); // the connection carries on
            assertThat(upstream.count("head-c"))
                    .as("no part is called for a HEAD")
                    .isZero();
            assertThat(upstream.count("head-a")).as("the GET's part only").isEqualTo(1);
        }
    }

    @Test
    void aComposedHeadCarriesTheFieldsOfItsGetIncludingTheRoutesOwnVary() {
        try (TestGateway gw = gateway()
                .route(
                        "lines",
                        on("/lines").methods("GET"),
                        compose().delivery(Delivery.NDJSON, Delivery.SSE).part("a", APP, "/json/10?tag=head-v"),
                        responseHeaders(Map.of("Vary", "Origin", "x-route", "set"), List.of()))
                .start()) {
            List<WireResponse> responses = gw.wire()
                    .sendAll(List.of(
                            WireRequest.of("HEAD", "/lines").header("Accept", "application/x-ndjson"),
                            WireRequest.get("/lines").header("Accept", "application/x-ndjson")));
            WireResponse head = responses.get(0);
            WireResponse get = responses.get(1);
            assertThat(get.status()).as("%s", get).isEqualTo(200);
            assertThat(varyTokens(get))
                    .as("the route's Vary and the format's: %s", get)
                    .containsExactlyInAnyOrder("origin", "accept");
            assertThat(varyTokens(head))
                    .as("a HEAD's Vary is its GET's: %s against %s", head, get)
                    .isEqualTo(varyTokens(get));
            for (String name : List.of("content-type", "x-route")) {
                assertThat(head.header(name)).as("%s: %s", name, head).isEqualTo(get.header(name));
            }
        }
    }

    /** Every token of every Vary field, lower-cased and sorted. */
    private static List<String> varyTokens(WireResponse response) {
        return response.headers().getOrDefault("vary", List.of()).stream()
                .flatMap(v -> Arrays.stream(v.split(",")))
                .map(t -> t.strip().toLowerCase(Locale.ROOT))
                .sorted()
                .toList();
    }

    @Test
    void aMethodNotAllowedListsHeadWhereGetIsAllowed() {
        try (TestGateway gw = gateway()
                .route("read", on("/things").methods("GET"), proxy(APP).build())
                .start()) {
            WireResponse response = gw.wire().send(WireRequest.of("DELETE", "/things"));
            assertError(response, 405, "method_not_allowed");
            assertThat(response.header("allow")).contains("GET, HEAD");
        }
    }
}
