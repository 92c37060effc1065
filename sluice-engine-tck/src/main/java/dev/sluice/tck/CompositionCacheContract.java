package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.PartCaching;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The part cache ({@code cache:} on a part, core {@code dev.sluice.compose.PartCache}): a fresh answer
 * is relayed from memory without calling the upstream, {@code _meta} says {@code "cached": true};
 * {@code Cache-Control} and {@code max-entry} decide what is kept. Expiry on the clock is driven by a
 * hand-moved ticker in the core's {@code PartCacheTest}; here an answer already as old as its {@code
 * max-age} is one that expired.
 */
public abstract class CompositionCacheContract extends ContractFixture {

    private static final PartCaching THIRTY_SECONDS = PartCaching.ttl(Duration.ofSeconds(30));

    /** Whether {@code _meta} says the part came from the cache ({@code "cached": true}; absent otherwise). */
    @SuppressWarnings("unchecked")
    private static boolean cached(Composed composed, String part) {
        Map<String, Object> entry = (Map<String, Object>) composed.meta("parts", part);
        return Boolean.TRUE.equals(entry.get("cached"));
    }

    @Test
    void aCachedPartIsRelayedFromMemoryAndItsUpstreamSeesOneRequestForTwo() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .cachedPart("product", APP, "/json/300?tag=cache-hit", THIRTY_SECONDS)
                                .part("live", APP, "/json/10"))
                .start()) {
            Composed first = Composed.of(gw.wire().get("/page"));
            Composed second = Composed.of(gw.wire().get("/page"));
            assertThat(upstream.count("cache-hit"))
                    .as("one upstream request for two compositions")
                    .isEqualTo(1);
            assertThat(second.part("product")).isEqualTo(first.part("product"));
            assertThat(cached(first, "product")).as("a miss").isFalse();
            assertThat(cached(second, "product")).isTrue();
            assertThat(second.meta("parts", "product", "bytes")).hasToString("300");
            assertThat(cached(second, "live")).isFalse();
            assertThat(gw.partCache().hits()).isEqualTo(1);
            assertThat(gw.partCache().misses()).isEqualTo(1);
        }
    }

    @Test
    void aHitDeliveredAsNdjsonLeavesTheCachedBytesAsTheUpstreamSentThem() {
        String pretty = upstream.respond(
                200,
                "application/json",
                "{\n  \"name\": \"lamp\",\n  \"price\": 12\n}".getBytes(StandardCharsets.UTF_8),
                Map.of("Cache-Control", "max-age=60"));
        try (TestGateway gw = gateway()
                .route(
                        "lines",
                        on("/lines"),
                        compose()
                                .delivery(dev.sluice.config.ComposeTarget.Delivery.NDJSON)
                                .cachedPart("p", APP, pretty, PartCaching.upstreamOnly()))
                .route("page", on("/page"), compose().cachedPart("p", APP, pretty, PartCaching.upstreamOnly()))
                .start()) {
            int before = upstream.exchanges();
            for (int i = 0; i < 2; i++) { // a line break becomes a space in a line, never in the cache
                WireResponse lines = gw.wire().get("/lines");
                assertThat(lines.bodyText().lines().count())
                        .as("%s", lines.bodyText())
                        .isEqualTo(2);
            }
            Composed page = Composed.of(gw.wire().get("/page"));
            assertThat(cached(page, "p")).isTrue();
            assertThat(page.response().bodyText()).contains("{\n  \"name\": \"lamp\"");
            assertThat(upstream.exchanges() - before)
                    .as("one upstream request for three")
                    .isEqualTo(1);
        }
    }

    @Test
    void anotherRequestIsAMiss() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page/{id}"),
                        compose().cachedPart("product", APP, "/json/20?tag=cache-miss-{id}", THIRTY_SECONDS))
                .start()) {
            Composed.of(gw.wire().get("/page/1"));
            Composed two = Composed.of(gw.wire().get("/page/2"));
            assertThat(cached(two, "product")).isFalse();
            assertThat(upstream.count("cache-miss-1")).isEqualTo(1);
            assertThat(upstream.count("cache-miss-2")).isEqualTo(1);
            assertThat(gw.partCache().misses()).isEqualTo(2);
        }
    }

    @Test
    void noStoreAndAnAnswerAlreadyAsOldAsItsMaxAgeAreNotKept() {
        String noStore = upstream.respond(
                200,
                "application/json",
                "{\"n\":1}".getBytes(StandardCharsets.UTF_8),
                Map.of("Cache-Control", "no-store"));
        String stale = upstream.respond(
                200,
                "application/json",
                "{\"n\":2}".getBytes(StandardCharsets.UTF_8),
                Map.of("Cache-Control", "max-age=60", "Age", "60"));
        try (TestGateway gw = gateway()
                .route("no-store", on("/no-store"), compose().cachedPart("p", APP, noStore, THIRTY_SECONDS))
                .route("stale", on("/stale"), compose().cachedPart("p", APP, stale, THIRTY_SECONDS))
                .start()) {
            for (String page : new String[] {"/no-store", "/stale"}) {
                int before = upstream.exchanges();
                Composed.of(gw.wire().get(page));
                Composed again = Composed.of(gw.wire().get(page));
                assertThat(upstream.exchanges() - before)
                        .as("%s: both compositions call the upstream", page)
                        .isEqualTo(2);
                assertThat(cached(again, "p")).isFalse();
            }
        }
    }

    @Test
    void aPartBiggerThanItsMaxEntryStreamsUncached() {
        PartCaching small = new PartCaching(Optional.of(Duration.ofSeconds(30)), 100);
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .cachedPart("big", APP, "/json/1000?tag=cache-big", small)
                                .cachedPart("chunked", APP, "/json/1000?chunked=1&tag=cache-chunked", small))
                .start()) {
            Composed.of(gw.wire().get("/page"));
            Composed second = Composed.of(gw.wire().get("/page"));
            assertThat(second.meta("parts", "big", "bytes")).hasToString("1000");
            assertThat(upstream.count("cache-big")).isEqualTo(2);
            assertThat(upstream.count("cache-chunked")).isEqualTo(2);
        }
    }
}
