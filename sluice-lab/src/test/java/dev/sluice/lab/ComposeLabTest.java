package dev.sluice.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.lab.compose.ComposeRoutes;
import dev.sluice.lab.compose.Documents;
import dev.sluice.lab.compose.TreeCompose;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

/** The compose scenario's pieces that need no load: its documents, its upstream routes, the baseline's shaping. */
class ComposeLabTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theMemoryTablesCautionNamesTheLaunchersFlagsAsTheLauncherHasThem() throws Exception {
        String launcher = java.nio.file.Files.readString(java.nio.file.Path.of("..", "sluice"));
        assertThat(launcher).contains("DEFAULT_JAVA_OPTS=\"" + dev.sluice.lab.Lab.LAUNCHER_FLAGS + "\"");
    }

    @Test
    void aDocumentIsExactlyNBytesOfJsonWithTheProductsFields() throws Exception {
        for (int n : List.of(Documents.MIN, 700, 16_384, 1_048_576, 8_388_608)) {
            byte[] doc = Documents.doc(n);
            assertThat(doc).as("size %d", n).hasSize(n);
            JsonNode tree = JSON.readTree(doc);
            assertThat(tree.get("id").asInt()).isEqualTo(n);
            assertThat(tree.get("name").isTextual()).isTrue();
            assertThat(tree.get("price").isNumber()).isTrue();
            assertThat(tree.get("reviewIds")).hasSize(Documents.REVIEWS);
            assertThat(tree.get("relatedIds")).hasSize(20);
            assertThat(tree.get("items").isArray()).isTrue();
            assertThat(tree.get("items").size()).isPositive();
            for (JsonNode item : tree.get("items")) {
                assertThat(item.get("sku").asText()).startsWith("SKU-");
                assertThat(item.size()).isGreaterThanOrEqualTo(5);
            }
            assertThat(tree.get("padding").isTextual()).isTrue();
        }
        // an 8 MB document is mostly items, not padding
        JsonNode big = JSON.readTree(Documents.doc(8_388_608));
        assertThat(big.get("items").size()).isGreaterThan(50_000);
        assertThat(big.get("padding").asText().length()).isLessThan(200);
    }

    @Test
    void theUpstreamServesDocumentsReviewsAndProducts() throws Exception {
        Server server = SizesUpstream.start(0);
        try {
            URI base = URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<byte[]> doc = http.send(
                    HttpRequest.newBuilder(base.resolve("/doc/16384")).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(doc.statusCode()).isEqualTo(200);
            assertThat(doc.body()).isEqualTo(Documents.doc(16_384));
            assertThat(doc.headers().firstValue("content-type")).hasValue("application/json");
            HttpResponse<String> reviews = http.send(
                    HttpRequest.newBuilder(base.resolve("/reviews?ids=3,5,8")).build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode r = JSON.readTree(reviews.body());
            assertThat(r).hasSize(3);
            assertThat(r.get(2).get("id").asInt()).isEqualTo(8);
            HttpResponse<String> product = http.send(
                    HttpRequest.newBuilder(base.resolve("/products/1007")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(JSON.readTree(product.body()).get("id").asInt()).isEqualTo(1007);
            HttpResponse<String> tooSmall = http.send(
                    HttpRequest.newBuilder(base.resolve("/doc/10")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(tooSmall.statusCode()).isEqualTo(400);
            HttpResponse<byte[]> bytes = http.send(
                    HttpRequest.newBuilder(base.resolve("/bytes/100")).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(bytes.body()).hasSize(100);
        } finally {
            server.stop();
        }
    }

    @Test
    void theBaselinesShapingKeepsWhatTheSelectNamesAsAJacksonReferenceDoes() throws Exception {
        JsonNode doc = JSON.readTree(Documents.doc(4096));
        // the reference, built by hand from the document's own members
        ObjectNode expected = JSON.createObjectNode();
        expected.set("id", doc.get("id"));
        expected.set("name", doc.get("name"));
        expected.set("price", doc.get("price"));
        ArrayNode items = expected.putArray("items");
        doc.get("items").forEach(i -> items.addObject().set("sku", i.get("sku")));
        assertThat(TreeCompose.select(doc, TreeCompose.SELECT)).isEqualTo(expected);
        // arrays are transparent, and a value where an object is expected is kept whole
        JsonNode odd = JSON.readTree("[{\"a\":{\"b\":1,\"c\":2},\"d\":3},{\"a\":\"text\"}]");
        assertThat(TreeCompose.select(odd, List.of("a.b")))
                .isEqualTo(JSON.readTree("[{\"a\":{\"b\":1}},{\"a\":\"text\"}]"));
    }

    @Test
    void theRoutesAreYamlListItemsWithTheIssuesSyntaxAndPartsUnderParts() {
        assertThat(ComposeRoutes.route("plain")).isEqualTo("""
                          - id: compose-plain
                            match: { path: "/compose/plain/{size}", methods: [GET] }
                            compose:
                              timeout: 60s
                              parts:
                                product: { upstream: sizes, path: "/doc/{size}" }
                                twin: { upstream: sizes, path: "/doc/{size}" }
                        """);
        assertThat(ComposeRoutes.route("shaped"))
                .contains("        product: { upstream: sizes, path: \"/doc/{size}\", select: [id, name, price, "
                        + "\"items[*].sku\"] }\n");
        assertThat(ComposeRoutes.route("chained"))
                .contains("        reviews: { upstream: sizes, after: product, path: "
                        + "\"/reviews?ids={product:/reviewIds}\" }\n");
        assertThat(ComposeRoutes.route("collection"))
                .contains(
                        "        related: { upstream: sizes, each: \"product:/relatedIds\", path: \"/products/{each}\","
                                + " max: 20, concurrency: 5 }\n");
    }
}
