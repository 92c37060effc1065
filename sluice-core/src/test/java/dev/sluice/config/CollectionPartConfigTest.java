package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CollectionPartConfigTest {

    @Test
    void eachMaxConcurrencyAndOrderBindToTheCollection() throws Exception {
        GatewayConfig config = ConfigLoader.parse(
                ChainedPartConfigTest.yaml(
                        "parallel",
                        "product: { upstream: a, path: /p }",
                        "related: { upstream: a, path: \"/products/{each}\", each: \"product:/relatedIds\","
                                + " max: 20, concurrency: 5, order: arrival }",
                        "asked: { upstream: a, path: \"/products/{each}\", each: \"query:ids\" }"),
                "inline");
        List<PartConfig> parts = ((ComposeTarget) config.routes().get(0).target()).parts();
        assertThat(parts.get(1).collection()).contains(new PartConfig.Collection("product:/relatedIds", 20, 5, true));
        assertThat(parts.get(1).after()).contains("product");
        assertThat(parts.get(2).collection())
                .contains(new PartConfig.Collection(
                        "query:ids",
                        PartConfig.Collection.DEFAULT_MAX,
                        PartConfig.Collection.DEFAULT_CONCURRENCY,
                        false));
        assertThat(parts.get(2).after()).isEqualTo(Optional.empty());
    }

    @Test
    void checkRefusesABadCollectionByPath() {
        List<String> paths = ConfigLoader.check(
                        ChainedPartConfigTest.yaml(
                                "parallel",
                                "product: { upstream: a, path: /p }",
                                "a: { upstream: a, path: \"/x/{each}\", each: \"nowhere:/ids\" }",
                                "b: { upstream: a, path: \"/x/{each}\", each: \"product:ids\" }",
                                "c: { upstream: a, path: /x, each: \"product:/ids\" }",
                                "d: { upstream: a, path: \"/x/{each}\", each: \"product:/ids\", max: 0 }",
                                "e: { upstream: a, path: /x, concurrency: 2 }",
                                "f: { upstream: a, path: /f, after: g }",
                                "g: { upstream: a, path: \"/x/{each}\", each: \"product:/ids\" }",
                                "h: { upstream: a, path: \"/x/{each}\", each: \"query:\" }"),
                        "inline")
                .stream()
                .map(Problem::path)
                .toList();
        assertThat(paths)
                .containsExactlyInAnyOrder(
                        "routes[0].compose.parts.a.each",
                        "routes[0].compose.parts.b.each",
                        "routes[0].compose.parts.c.path",
                        "routes[0].compose.parts.d.max",
                        "routes[0].compose.parts.e.concurrency",
                        "routes[0].compose.parts.f.after",
                        "routes[0].compose.parts.h.each");
    }
}
