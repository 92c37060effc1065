package dev.sluice.compose;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonSpliceTest {

    static final long MS = 1_000_000;

    @Test
    void keysAndMetaFrameTheParts() {
        JsonSplice splice = new JsonSplice(List.of("product", "reviews", "route"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // arrival order: reviews first, then product, then route failed
        out.writeBytes(splice.key(1, true));
        out.writeBytes("[{\"stars\":5}]".getBytes(StandardCharsets.UTF_8));
        out.writeBytes(splice.key(0, false));
        out.writeBytes("{\"id\":\"p1\"}".getBytes(StandardCharsets.UTF_8));
        out.writeBytes(splice.key(2, false));
        out.writeBytes(JsonSplice.NULL);
        out.writeBytes(JsonSplice.meta(
                List.of(
                        PartOutcome.ok("product", 200, 31_200_000, 11),
                        PartOutcome.ok("reviews", 200, 12_345_678, 13),
                        PartOutcome.failed("route", 0, "upstream connect timeout", 1_000 * MS)),
                1_002_500_000));
        String json = out.toString(StandardCharsets.UTF_8);

        assertThat(json)
                .isEqualTo("{\"reviews\":[{\"stars\":5}],\"product\":{\"id\":\"p1\"},\"route\":null,"
                        + "\"_meta\":{\"parts\":{"
                        + "\"product\":{\"status\":200,\"latency_ms\":31.200,\"bytes\":11},"
                        + "\"reviews\":{\"status\":200,\"latency_ms\":12.346,\"bytes\":13},"
                        + "\"route\":{\"status\":0,\"latency_ms\":1000.000,\"bytes\":0,\"error\":\"upstream connect timeout\"}},"
                        + "\"failed\":[\"route\"],\"latency_ms\":1002.500}}");
        JsonValidator v = new JsonValidator();
        byte[] bytes = out.toByteArray();
        v.feed(bytes, 0, bytes.length);
        assertThat(v.finish()).as(v.error()).isTrue();
    }

    @Test
    void namesAndErrorsAreQuoted() {
        assertThat(JsonSplice.quote("a\"b\\c\nd\te\u0001\u00e9")).isEqualTo("\"a\\\"b\\\\c\\nd\\te\\u0001\u00e9\"");
        assertThat(JsonSplice.quote("/orders/42?x=1")).isEqualTo("\"/orders/42?x=1\"");
        assertThat(JsonSplice.quote("")).isEqualTo("\"\"");
        assertThat(JsonSplice.appendQuoted(new StringBuilder("x:"), "ab\"")).hasToString("x:\"ab\\\"\"");
        assertThat(JsonSplice.appendQuoted(new StringBuilder(), "\u001f")).hasToString("\"\\u001f\"");
        JsonSplice splice = new JsonSplice(List.of("we\"ird"));
        assertThat(new String(splice.key(0, true), StandardCharsets.UTF_8)).isEqualTo("{\"we\\\"ird\":");
        assertThat(new String(splice.key(0, false), StandardCharsets.UTF_8)).isEqualTo(",\"we\\\"ird\":");

        byte[] meta =
                JsonSplice.meta(List.of(PartOutcome.failed("we\"ird", 502, "upstream status 502: \"bad\"", 0)), 0);
        String json = "{\"we\\\"ird\":null" + new String(meta, StandardCharsets.UTF_8);
        JsonValidator v = new JsonValidator();
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        v.feed(bytes, 0, bytes.length);
        assertThat(v.finish()).as(json + " " + v.error()).isTrue();
        assertThat(json).contains("\"failed\":[\"we\\\"ird\"]", "\"error\":\"upstream status 502: \\\"bad\\\"\"");
    }

    @Test
    void metaWithNoFailureHasAnEmptyFailedList() {
        String meta =
                new String(JsonSplice.meta(List.of(PartOutcome.ok("a", 204, 0, 0)), 5 * MS), StandardCharsets.UTF_8);
        assertThat(meta)
                .isEqualTo(",\"_meta\":{\"parts\":{\"a\":{\"status\":204,\"latency_ms\":0.000,\"bytes\":0}},"
                        + "\"failed\":[],\"latency_ms\":5.000}}");
    }

    @Test
    void partRulesAcceptOnly2xxJson() {
        assertThat(PartRules.rejection(200, "application/json; charset=utf-8")).isEmpty();
        assertThat(PartRules.rejection(200, "application/problem+json")).isEmpty();
        assertThat(PartRules.rejection(404, "application/json")).contains("upstream status 404");
        assertThat(PartRules.rejection(200, "text/html")).contains("not JSON: Content-Type 'text/html'");
        assertThat(PartRules.rejection(200, null)).contains("not JSON: Content-Type missing");
        assertThat(PartRules.isJson("+json")).isFalse();
    }
}
