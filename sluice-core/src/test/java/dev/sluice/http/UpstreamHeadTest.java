package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UpstreamHeadTest {

    private static final String PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    private final UpstreamHead head = UpstreamHead.of(
            "10.0.0.1", null, null, "shop.example", "http", "192.0.2.7", "r-1", TraceContext.of(PARENT, "a=1"));

    private static List<String> written(
            UpstreamHead head, HeaderRules rules, Map<String, String> policySets, String authority) {
        List<String> out = new ArrayList<>();
        head.addTo(rules, policySets, authority, (name, value) -> out.add(name + ": " + value));
        return out;
    }

    @Test
    void aRouteWithoutSetsGetsHostTheExchangesIdAndTraceAndTheForwardedTrio() {
        List<String> out = written(head, HeaderRules.of(List.of()), Map.of(), "app:8080");
        assertThat(out).hasSize(7);
        assertThat(out.subList(0, 2)).containsExactly("Host: app:8080", "X-Request-Id: r-1");
        assertThat(out.get(2)).startsWith("traceparent: 00-0af7651916cd43dd8448eb211c80319c-");
        assertThat(out.subList(3, 7))
                .containsExactly(
                        "tracestate: a=1",
                        "X-Forwarded-For: 10.0.0.1, 192.0.2.7",
                        "X-Forwarded-Proto: http",
                        "X-Forwarded-Host: shop.example");
    }

    @Test
    void withoutAnAuthorityHostIsLeftToTheEngine() {
        assertThat(written(head, HeaderRules.of(List.of()), Map.of(), null)).noneMatch(h -> h.startsWith("Host:"));
        List<String> ignored = new ArrayList<>();
        assertThat(head.addTo(HeaderRules.of(List.of()), Map.of(), null, (n, v) -> ignored.add(n)))
                .as("the endpoint's Host is the engine's to write")
                .isTrue();
        assertThat(head.addTo(HeaderRules.of(List.of()), Map.of(), "app:8080", (n, v) -> ignored.add(n)))
                .as("written already")
                .isFalse();
    }

    @Test
    void aHostTheRouteOrAPolicySetsIsTheOnlyHostAndLeavesNoneToTheEngine() {
        HeaderRules rules =
                HeaderRules.of(List.of(new FilterConfig.RequestHeaders(Map.of("Host", "route.internal"), List.of())));
        for (String authority : new String[] {null, "app:8080"}) {
            List<String> out = new ArrayList<>();
            boolean left = head.addTo(rules, Map.of(), authority, (n, v) -> out.add(n + ": " + v));
            assertThat(left).isFalse();
            assertThat(out).filteredOn(h -> h.startsWith("Host:")).containsExactly("Host: route.internal");
            out.clear();
            left = head.addTo(rules, Map.of("host", "policy.internal"), authority, (n, v) -> out.add(n + ": " + v));
            assertThat(left).isFalse();
            assertThat(out)
                    .filteredOn(h -> h.toLowerCase().startsWith("host:"))
                    .containsExactly("host: policy.internal");
        }
    }

    @Test
    void eachNameIsWrittenOnceThePolicysSetOverTheRoutesAndTheRoutesOverTheGateways() {
        HeaderRules rules = HeaderRules.of(List.of(new FilterConfig.RequestHeaders(
                Map.of("X-User-Id", "anonymous", "x-forwarded-proto", "https", "X-Gateway", "sluice"), List.of())));
        List<String> out = written(head, rules, Map.of("x-user-id", "alice"), "app:8080");
        assertThat(out)
                .filteredOn(h -> h.toLowerCase().startsWith("x-user-id:"))
                .containsExactly("x-user-id: alice");
        assertThat(out)
                .filteredOn(h -> h.toLowerCase().startsWith("x-forwarded-proto:"))
                .containsExactly("x-forwarded-proto: https");
        assertThat(out).contains("X-Gateway: sluice");
        List<String> names = out.stream()
                .map(h -> h.substring(0, h.indexOf(':')).toLowerCase())
                .toList();
        assertThat(names).doesNotHaveDuplicates();
    }
}
