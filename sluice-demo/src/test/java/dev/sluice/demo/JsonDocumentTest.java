package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonDocumentTest {

    private static String text(ByteBuffer buffer) {
        return StandardCharsets.UTF_8.decode(buffer.slice()).toString();
    }

    @Test
    void expandedReplacesEveryPlaceholderAndCachesTheBuffer() {
        JsonDocument customer = JsonDocument.load("customer.json", "{{id}}");
        ByteBuffer first = customer.expanded("cust-9").orElseThrow();
        assertThat(text(first))
                .contains("\"id\": \"cust-9\"", "\"/customers/cust-9\"")
                .doesNotContain("{{id}}");
        assertThat(customer.expanded("cust-9")).containsSame(first);
        assertThat(first.isReadOnly()).isTrue();
    }

    @Test
    void valuesThatCouldBreakTheJsonAreRefused() {
        JsonDocument customer = JsonDocument.load("customer.json", "{{id}}");
        assertThat(customer.expanded("a\"b")).isEmpty();
        assertThat(customer.expanded("")).isEmpty();
        assertThat(customer.expanded("x".repeat(41))).isEmpty();
    }

    @Test
    void wholeIsTheBundledTextAndIsNotConsumedBySending() {
        JsonDocument products = JsonDocument.load("products.json", "");
        ByteBuffer whole = products.whole();
        int before = whole.remaining();
        assertThat(text(whole)).startsWith("{").contains("\"products\"");
        assertThat(whole.remaining()).isEqualTo(before);
    }
}
