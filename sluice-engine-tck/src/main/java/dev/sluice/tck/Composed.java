package dev.sluice.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sluice.compose.JsonSplice;
import dev.sluice.compose.PartRules;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A composed response checked against the framing the contract fixes: {@code {"<part>":<bytes
 * verbatim or null>,...,"_meta":{...}}}, chunked, with {@code _meta} listing every part in declared
 * order.
 */
public final class Composed {

    private final WireResponse response;
    private final Map<String, Object> json;

    private Composed(WireResponse response, Map<String, Object> json) {
        this.response = response;
        this.json = json;
    }

    /** Checks status 200, JSON, chunked, a clean end and one JSON object, and reads it. */
    public static Composed of(WireResponse response) {
        assertThat(response.status())
                .as("status of a composition: %s", response)
                .isEqualTo(200);
        assertThat(response.complete())
                .as("a composition ends with its final chunk: %s", response)
                .isTrue();
        assertThat(response.framing()).as("a composition is chunked").isEqualTo("chunked");
        assertThat(PartRules.isJson(response.header("content-type").orElse(null)))
                .as("Content-Type of a composition: %s", response.header("content-type"))
                .isTrue();
        return new Composed(response, Json.object(response.body()));
    }

    /**
     * A composition answered to an HTTP/1.0 client: as {@link #of}, but ended by the connection's
     * close, since HTTP/1.0 has no chunked coding.
     */
    public static Composed closeDelimited(WireResponse response) {
        assertThat(response.status())
                .as("status of a composition: %s", response)
                .isEqualTo(200);
        assertThat(response.framing())
                .as("an HTTP/1.0 composition ends with the close")
                .isEqualTo("close");
        assertThat(response.complete()).as("%s", response).isTrue();
        assertThat(PartRules.isJson(response.header("content-type").orElse(null)))
                .as("Content-Type of a composition: %s", response.header("content-type"))
                .isTrue();
        return new Composed(response, Json.object(response.body()));
    }

    /** The keys in wire order, {@code _meta} last. */
    public List<String> keys() {
        return List.copyOf(json.keySet());
    }

    public Object part(String name) {
        return Json.at(json, name);
    }

    public Object meta(String... path) {
        String[] full = new String[path.length + 1];
        full[0] = "_meta";
        System.arraycopy(path, 0, full, 1, path.length);
        return Json.at(json, full);
    }

    /** The {@code _meta} entry's error for a part, or empty when it has none. */
    @SuppressWarnings("unchecked")
    public Optional<String> error(String part) {
        Map<String, Object> entry = (Map<String, Object>) meta("parts", part);
        return Optional.ofNullable(entry.get("error")).map(String::valueOf);
    }

    public WireResponse response() {
        return response;
    }

    /**
     * Asserts the body starts with exactly these parts, in this order, each followed by its bytes
     * verbatim ({@code null} bytes: the part failed and must be the literal {@code null}), then
     * {@code ,"_meta":}; and that {@code _meta} agrees: every declared part, byte counts, failures.
     *
     * @param wireOrder part name → expected bytes, in the order expected on the wire
     * @param declared every part name, in declared order
     */
    public Composed assertSpliced(List<Map.Entry<String, byte[]>> wireOrder, List<String> declared) {
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        boolean first = true;
        List<String> failed = new ArrayList<>();
        for (Map.Entry<String, byte[]> part : wireOrder) {
            expected.writeBytes(
                    ((first ? "{" : ",") + JsonSplice.quote(part.getKey()) + ":").getBytes(StandardCharsets.UTF_8));
            expected.writeBytes(part.getValue() == null ? JsonSplice.NULL : part.getValue());
            first = false;
        }
        expected.writeBytes(",\"_meta\":".getBytes(StandardCharsets.UTF_8));
        byte[] body = response.body();
        byte[] prefix = expected.toByteArray();
        int mismatch = Arrays.mismatch(body, 0, Math.min(body.length, prefix.length), prefix, 0, prefix.length);
        if (mismatch >= 0) {
            fail(
                    "the composed body's parts, verbatim and in order: first difference at byte %d:%n got      %s%n expected %s",
                    mismatch, excerpt(body, mismatch), excerpt(prefix, mismatch));
        }
        assertThat(keys())
                .as("keys on the wire")
                .containsExactlyElementsOf(
                        concat(wireOrder.stream().map(Map.Entry::getKey).toList(), "_meta"));

        @SuppressWarnings("unchecked")
        Map<String, Object> parts = (Map<String, Object>) meta("parts");
        assertThat(parts.keySet()).as("_meta.parts in declared order").containsExactlyElementsOf(declared);
        for (Map.Entry<String, byte[]> part : wireOrder) {
            String name = part.getKey();
            assertThat(Json.at(parts, name, "latency_ms"))
                    .as("_meta.parts.%s.latency_ms", name)
                    .isInstanceOfSatisfying(
                            BigDecimal.class, ms -> assertThat(ms.signum()).isNotNegative());
            if (part.getValue() == null) {
                failed.add(name);
                assertThat(error(name))
                        .as("_meta.parts.%s.error", name)
                        .hasValueSatisfying(e -> assertThat(e).isNotBlank());
            } else {
                assertThat(error(name)).as("_meta.parts.%s.error", name).isEmpty();
                assertThat(Json.at(parts, name, "status"))
                        .as("_meta.parts.%s.status", name)
                        .hasToString("200");
                assertThat(Json.at(parts, name, "bytes"))
                        .as("_meta.parts.%s.bytes", name)
                        .hasToString(Integer.toString(part.getValue().length));
            }
        }
        List<String> failedInDeclaredOrder =
                declared.stream().filter(failed::contains).toList();
        assertThat(meta("failed")).as("_meta.failed").isEqualTo(failedInDeclaredOrder);
        assertThat(meta("latency_ms")).isInstanceOf(BigDecimal.class);
        return this;
    }

    private static String excerpt(byte[] bytes, int at) {
        int from = Math.max(0, at - 40);
        int to = Math.min(bytes.length, at + 40);
        return "..." + new String(bytes, from, to - from, StandardCharsets.UTF_8)
                + (to < bytes.length ? "..." : "[end]");
    }

    private static List<String> concat(List<String> list, String last) {
        List<String> all = new ArrayList<>(list);
        all.add(last);
        return all;
    }
}
