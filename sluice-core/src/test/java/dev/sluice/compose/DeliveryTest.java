package dev.sluice.compose;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.compose.CompositionPlan.Step;
import dev.sluice.config.ComposeTarget;
import dev.sluice.config.ComposeTarget.Delivery;
import dev.sluice.config.ComposeTarget.Fanout;
import dev.sluice.config.ComposeTarget.OnError;
import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.observe.GatewayObserver;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each delivery format's framing, written as an engine writes it, and the negotiation by Accept. */
class DeliveryTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String BODY_A = "{\n  \"x\": \"line\\nbreak\"\r\n}";

    long now = 1_000 * CompositionPlanTest.MS;

    ComposeTarget target(List<Delivery> delivery) {
        return new ComposeTarget(
                Fanout.PARALLEL,
                Order.ARRIVAL,
                OnError.PARTIAL,
                Duration.ofSeconds(2),
                false,
                List.of(CompositionPlanTest.part("a"), CompositionPlanTest.part("b")),
                delivery);
    }

    /** Part b fails (502), then part a (a body with line breaks) arrives 12 ms in: the bytes an engine writes. */
    String deliver(Delivery format) {
        ComposeTarget target = target(List.of(format));
        JsonSplice splice = new JsonSplice(List.of("a", "b"));
        CompositionPlan plan = new CompositionPlan(
                "", target, splice, 100, () -> now, GatewayObserver.NONE, null, format, targets(target));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] body = BODY_A.getBytes(StandardCharsets.UTF_8);
        assertThat(plan.delivery()).isEqualTo(format);
        drain(plan, out, body);
        plan.answered(1, 502, "application/json");
        drain(plan, out, body);
        now += 12 * CompositionPlanTest.MS;
        plan.answered(0, 200, "application/json");
        plan.received(0, body.length);
        plan.ended(0);
        drain(plan, out, body);
        return out.toString(StandardCharsets.UTF_8);
    }

    static void drain(CompositionPlan plan, ByteArrayOutputStream out, byte[] body) {
        for (Step s = plan.next(); s != Step.WAIT; s = plan.next()) {
            switch (s) {
                case OPEN -> out.writeBytes(plan.key());
                case NULL -> {
                    out.writeBytes(plan.key());
                    out.writeBytes(JsonSplice.NULL);
                }
                case RELAY -> {
                    byte[] chunk = body.clone();
                    if (plan.flattensRelayed()) {
                        DeliveryFrames.flatten(chunk, 0, chunk.length);
                    }
                    out.writeBytes(chunk);
                    plan.relayed(plan.part(), chunk.length);
                }
                case CLOSE -> out.writeBytes(plan.closer());
                case FINISH -> out.writeBytes(plan.meta());
                default -> {}
            }
        }
    }

    @Test
    void jsonIsTheSingleObjectAsBefore() throws Exception {
        JsonNode all = JSON.readTree(deliver(Delivery.JSON));
        assertThat(all.get("b").isNull()).isTrue();
        assertThat(all.get("a").get("x").asText()).isEqualTo("line\nbreak");
        assertThat(all.get("_meta").get("failed").get(0).asText()).isEqualTo("b");
    }

    @Test
    void ndjsonIsALinePerPartInRelayOrderThenMeta() throws Exception {
        String out = deliver(Delivery.NDJSON);
        assertThat(out).endsWith("\n");
        List<JsonNode> lines = new ArrayList<>();
        for (String line : out.split("\n")) {
            lines.add(JSON.readTree(line));
        }
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0).get("part").asText()).isEqualTo("b");
        assertThat(lines.get(0).get("status").asInt()).isEqualTo(502);
        assertThat(lines.get(0).get("error").asText()).contains("502");
        assertThat(lines.get(0).get("body").isNull()).isTrue();
        assertThat(lines.get(1).get("part").asText()).isEqualTo("a");
        assertThat(lines.get(1).get("ms").asDouble()).isEqualTo(12.0);
        assertThat(lines.get(1).get("body").get("x").asText()).isEqualTo("line\nbreak");
        assertThat(lines.get(2).get("_meta").get("failed").get(0).asText()).isEqualTo("b");
    }

    @Test
    void aPartsFrameClosesAsSoonAsItsBodyEndsNotWhenTheNextPartOpens() {
        ComposeTarget target = target(List.of(Delivery.NDJSON));
        CompositionPlan plan = new CompositionPlan(
                "",
                target,
                new JsonSplice(List.of("a", "b")),
                100,
                () -> now,
                GatewayObserver.NONE,
                null,
                Delivery.NDJSON,
                targets(target));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] body = "[1]".getBytes(StandardCharsets.UTF_8);
        drain(plan, out, body);
        plan.answered(0, 200, "application/json");
        plan.received(0, body.length);
        plan.ended(0);
        drain(plan, out, body); // b has not answered
        assertThat(out.toString(StandardCharsets.UTF_8))
                .isEqualTo("{\"part\":\"a\",\"status\":200,\"ms\":0.000,\"body\":[1]}\n");
    }

    @Test
    void sseIsAnEventPerPartWithNoRawLineBreakInItsData() throws Exception {
        String out = deliver(Delivery.SSE);
        String[] events = out.split("\n\n", -1);
        assertThat(events).hasSize(4); // b, a, meta, and nothing after the last blank line
        assertThat(events[3]).isEmpty();
        assertThat(events[0]).startsWith("event: part\nid: b\ndata: {");
        String[] a = events[1].split("\n");
        assertThat(a).containsExactly(a[0], a[1], a[2]); // event, id, one data line
        assertThat(a[0]).isEqualTo("event: part");
        assertThat(a[1]).isEqualTo("id: a");
        JsonNode data = JSON.readTree(a[2].substring("data: ".length()));
        assertThat(data.get("body").get("x").asText()).isEqualTo("line\nbreak");
        assertThat(events[2]).startsWith("event: meta\ndata: {\"_meta\":");
        assertThat(JSON.readTree(events[2].substring(events[2].indexOf('{'))).has("_meta"))
                .isTrue();
    }

    @Test
    void multipartIsGraphQlIncrementalDelivery() throws Exception {
        String out = deliver(Delivery.MULTIPART);
        assertThat(out).startsWith("\r\n---\r\n").endsWith("\r\n-----\r\n");
        String[] parts =
                out.substring(0, out.length() - "\r\n-----\r\n".length()).split("\r\n---\r\n");
        assertThat(parts).hasSize(4); // "" before the first boundary, b, a, meta
        List<JsonNode> payloads = new ArrayList<>();
        for (int i = 1; i < parts.length; i++) {
            assertThat(parts[i]).startsWith("Content-Type: application/json; charset=utf-8\r\n\r\n");
            payloads.add(JSON.readTree(parts[i].substring(parts[i].indexOf("\r\n\r\n") + 4)));
        }
        assertThat(payloads.get(0).get("part").asText()).isEqualTo("b");
        assertThat(payloads.get(1).get("body").get("x").asText()).isEqualTo("line\nbreak");
        assertThat(payloads.get(2).has("_meta")).isTrue();
    }

    @Test
    void aRouteWithOneFormatServesItWhateverAcceptSays() {
        ComposeTarget t = target(List.of(Delivery.NDJSON));
        assertThat(t.negotiatesDelivery()).isFalse();
        assertThat(DeliveryNegotiation.choose(t, "application/json")).contains(Delivery.NDJSON);
        assertThat(DeliveryNegotiation.choose(target(List.of(Delivery.JSON)), "text/event-stream"))
                .contains(Delivery.JSON);
    }

    @Test
    void negotiationTakesTheMostSpecificRangeAndTheHighestQuality() {
        ComposeTarget all = target(List.of(Delivery.values()));
        assertThat(DeliveryNegotiation.choose(all, null)).contains(Delivery.JSON);
        assertThat(DeliveryNegotiation.choose(all, "*/*")).contains(Delivery.JSON);
        assertThat(DeliveryNegotiation.choose(all, "text/event-stream")).contains(Delivery.SSE);
        assertThat(DeliveryNegotiation.choose(all, "application/json;q=0.5, application/x-ndjson"))
                .contains(Delivery.NDJSON);
        assertThat(DeliveryNegotiation.choose(all, "multipart/mixed;deferSpec=20220824, application/json;q=0.9"))
                .contains(Delivery.MULTIPART);
        assertThat(DeliveryNegotiation.choose(all, "application/*, application/json;q=0"))
                .contains(Delivery.NDJSON);
        assertThat(DeliveryNegotiation.choose(all, "text/html"))
                .as("negotiate serves every format: JSON, not 406")
                .contains(Delivery.JSON);
    }

    @Test
    void aRouteThatRestrictsItsFormatsRefusesAnAcceptAllowingNone() {
        ComposeTarget some = target(List.of(Delivery.SSE, Delivery.NDJSON));
        assertThat(some.refusesUnacceptable()).isTrue();
        assertThat(DeliveryNegotiation.choose(some, "application/json")).isEmpty();
        assertThat(DeliveryNegotiation.choose(some, "text/event-stream;q=0")).isEmpty();
        assertThat(DeliveryNegotiation.choose(some, "text/*")).contains(Delivery.SSE);
        assertThat(DeliveryNegotiation.choose(some, "application/x-ndjson")).contains(Delivery.NDJSON);
        assertThat(new String(DeliveryNegotiation.notAcceptableBody(some), StandardCharsets.UTF_8))
                .contains("not_acceptable")
                .contains("text/event-stream, application/x-ndjson");
    }

    private static PartRequest.Targets targets(ComposeTarget target) {
        return PartRequest.withoutBasePaths(target.parts()).expand(java.util.Map.of(), java.util.Map.of(), "");
    }
}
