package dev.sluice.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Response edits: sets replace, Vary tokens merge, later policies win, refusals carry them. */
class ResponseEditsTest {

    /** A head as a multimap, names compared in any case, as the engines' headers are. */
    private static final class Fields implements ResponseEdits.Head {
        final Map<String, List<String>> fields = new LinkedHashMap<>();

        Fields add(String name, String value) {
            fields.computeIfAbsent(key(name), k -> new ArrayList<>()).add(value);
            return this;
        }

        private String key(String name) {
            return fields.keySet().stream()
                    .filter(name::equalsIgnoreCase)
                    .findFirst()
                    .orElse(name);
        }

        @Override
        public List<String> values(String name) {
            return fields.getOrDefault(key(name), List.of());
        }

        @Override
        public void set(String name, String value) {
            fields.remove(key(name));
            fields.put(name, new ArrayList<>(List.of(value)));
        }
    }

    @Test
    void setsReplaceTheUpstreamsAndVaryTokensMergeWithoutRepeats() {
        Fields head = new Fields()
                .add("access-control-allow-origin", "*")
                .add("Vary", "Accept-Encoding")
                .add("vary", "origin");
        ResponseEdits.of(Map.of("Access-Control-Allow-Origin", "https://shop.example"), List.of("Origin", "Accept"))
                .applyTo(head);
        assertThat(head.values("Access-Control-Allow-Origin")).containsExactly("https://shop.example");
        assertThat(head.values("Vary")).containsExactly("Accept-Encoding, origin, Accept");
    }

    @Test
    void aHeadGivenByItsMapsMethodsIsEditedAlike() {
        Fields head = new Fields().add("x-a", "upstream's").add("Vary", "Accept-Encoding");
        ResponseEdits.of(Map.of("X-A", "policy's"), List.of("Origin")).applyTo(head::values, head::set);
        assertThat(head.values("x-a")).containsExactly("policy's");
        assertThat(head.values("vary")).containsExactly("Accept-Encoding, Origin");
    }

    @Test
    void varyStarStaysAndAHeadWithoutVaryGetsTheTokens() {
        Fields star = new Fields().add("Vary", "*");
        ResponseEdits.of(Map.of(), List.of("Origin")).applyTo(star);
        assertThat(star.values("Vary")).containsExactly("*");
        Fields none = new Fields();
        ResponseEdits.of(Map.of(), List.of("Origin")).applyTo(none);
        assertThat(none.values("Vary")).containsExactly("Origin");
    }

    @Test
    void laterEditsWinAndNoneIsNone() {
        ResponseEdits first = ResponseEdits.of(Map.of("RateLimit-Remaining", "5"), List.of("Origin"));
        ResponseEdits later = ResponseEdits.of(Map.of("ratelimit-remaining", "1"), List.of("origin", "Accept"));
        ResponseEdits both = first.and(later);
        assertThat(both.set()).containsExactly(Map.entry("ratelimit-remaining", "1"));
        assertThat(both.vary()).containsExactly("Origin", "Accept");
        assertThat(ResponseEdits.of(Map.of(), List.of())).isSameAs(ResponseEdits.NONE);
        assertThat(first.and(ResponseEdits.NONE)).isSameAs(first);
        assertThat(ResponseEdits.NONE.and(first)).isSameAs(first);
    }

    @Test
    void aRefusalAfterAPolicyThatProceededCarriesItsResponseEdits() {
        InboundPolicy marks = request -> Decision.Proceed.responding(
                ResponseEdits.of(Map.of("Access-Control-Allow-Origin", "https://shop.example"), List.of("Origin")));
        InboundPolicy refuses =
                request -> new Decision.Reject(401, "unauthorized", "no token", Map.of("WWW-Authenticate", "Bearer"));
        Decision d = new PolicyChain(new InboundPolicy[] {marks, refuses}).admit(GivenRequest.from("10.0.0.1"));
        assertThat(d)
                .isInstanceOfSatisfying(
                        Decision.Reject.class,
                        r -> assertThat(r.headers())
                                .containsEntry("WWW-Authenticate", "Bearer")
                                .containsEntry("Access-Control-Allow-Origin", "https://shop.example")
                                .containsEntry("Vary", "Origin"));

        Decision passed = new PolicyChain(new InboundPolicy[] {marks, request -> Decision.Proceed.FREELY})
                .admit(GivenRequest.from("10.0.0.1"));
        assertThat(passed)
                .isInstanceOfSatisfying(
                        Decision.Proceed.class,
                        p -> assertThat(p.response().set())
                                .containsEntry("Access-Control-Allow-Origin", "https://shop.example"));
        assertThat(new PolicyChain(new InboundPolicy[] {request -> Decision.Proceed.FREELY})
                        .admit(GivenRequest.from("10.0.0.1")))
                .as("no edit: nothing allocated")
                .isSameAs(Decision.Proceed.FREELY);
    }
}
