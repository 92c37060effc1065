package dev.sluice.lab.compose;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.lab.SizesUpstream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The tree baseline composes every route kind from the lab's real upstream as the gateway's routes say. */
class TreeComposeTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static Server upstream;
    private static TreeCompose tree;

    @BeforeAll
    static void start() throws Exception {
        upstream = SizesUpstream.start(0);
        tree = new TreeCompose(
                URI.create("http://127.0.0.1:" + ((ServerConnector) upstream.getConnectors()[0]).getLocalPort()));
    }

    @AfterAll
    static void stop() throws Exception {
        upstream.stop();
    }

    @Test
    void plainAndShapedMergeBothPartsTheShapedOnesSelected() throws Exception {
        JsonNode doc = JSON.readTree(Documents.doc(16_384));
        ObjectNode plain = tree.compose("plain", 16_384);
        assertThat(plain.fieldNames()).toIterable().containsExactly("product", "twin");
        assertThat(plain.get("product")).isEqualTo(doc);
        assertThat(plain.get("twin")).isEqualTo(doc);
        ObjectNode shaped = tree.compose("shaped", 16_384);
        assertThat(shaped.get("product")).isEqualTo(TreeCompose.select(doc, TreeCompose.SELECT));
        assertThat(shaped.get("twin").fieldNames()).toIterable().containsExactly("id", "name", "price", "items");
        assertThat(shaped.get("twin").get("items").get(0).fieldNames())
                .toIterable()
                .containsExactly("sku");
    }

    @Test
    void chainedFetchesTheReviewsTheProductNames() {
        ObjectNode chained = tree.compose("chained", 16_384);
        List<Integer> ids = new ArrayList<>();
        chained.get("reviews").forEach(r -> ids.add(r.get("id").asInt()));
        List<Integer> expected = new ArrayList<>();
        chained.get("product").get("reviewIds").forEach(i -> expected.add(i.asInt()));
        assertThat(ids).hasSize(Documents.REVIEWS).isEqualTo(expected);
    }

    @Test
    void collectionFetchesEachRelatedProductInOrder() {
        ObjectNode collection = tree.compose("collection", 16_384);
        List<Integer> ids = new ArrayList<>();
        collection.get("related").forEach(r -> ids.add(r.get("id").asInt()));
        List<Integer> expected = new ArrayList<>();
        collection.get("product").get("relatedIds").forEach(i -> expected.add(i.asInt()));
        assertThat(ids).hasSize(20).isEqualTo(expected);
    }
}
