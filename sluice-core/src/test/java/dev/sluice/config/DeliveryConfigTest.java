package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget.Delivery;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeliveryConfigTest {

    static String yaml(String delivery) {
        return """
                upstreams: { a: { url: "http://127.0.0.1:1" } }
                routes:
                  - id: r
                    match: { path: /p }
                    compose:
                      %s
                      parts:
                        p: { upstream: a, path: /x }
                """.formatted(delivery);
    }

    static List<Delivery> delivery(String line) throws Exception {
        return ((ComposeTarget)
                        ConfigLoader.parse(yaml(line), "inline").routes().get(0).target())
                .delivery();
    }

    static List<String> problems(String line) {
        return ConfigLoader.check(yaml(line), "inline").stream()
                .map(Problem::path)
                .toList();
    }

    @Test
    void deliveryBindsAFormatAListOrEveryFormatToNegotiate() throws Exception {
        assertThat(delivery("fanout: parallel")).containsExactly(Delivery.JSON);
        assertThat(delivery("delivery: sse")).containsExactly(Delivery.SSE);
        assertThat(delivery("delivery: [ndjson, multipart]")).containsExactly(Delivery.NDJSON, Delivery.MULTIPART);
        assertThat(delivery("delivery: negotiate"))
                .containsExactly(Delivery.JSON, Delivery.NDJSON, Delivery.SSE, Delivery.MULTIPART);
    }

    @Test
    void aBadDeliveryIsRefusedByPath() {
        assertThat(problems("delivery: xml")).containsExactly("routes[0].compose.delivery");
        assertThat(problems("delivery: [sse, sse]")).containsExactly("routes[0].compose.delivery");
        assertThat(problems("delivery: [sse, negotiate]")).containsExactly("routes[0].compose.delivery");
        assertThat(problems("delivery: []")).containsExactly("routes[0].compose.delivery");
        assertThat(problems("delivery: { a: 1 }")).containsExactly("routes[0].compose.delivery");
    }
}
