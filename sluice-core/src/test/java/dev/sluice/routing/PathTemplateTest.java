package dev.sluice.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathTemplateTest {

    @Test
    void pathVariablesAreInsertedRawAndQueryValuesEncoded() {
        PathTemplate t = PathTemplate.parse("/reviews/{id}?product={id}&q={q}");
        assertThat(t.variableNames()).containsExactly("id", "q");
        assertThat(t.expand(Map.of("id", "p%201"), Map.of("q", "caf\u00e9 & more/~x"), ""))
                .isEqualTo("/reviews/p%201?product=p%201&q=caf%C3%A9%20%26%20more%2F~x");
    }

    /** template | path variable id (raw) | expansion. */
    @ParameterizedTest(name = "{0} with id={1} -> {2}")
    @CsvSource(
            delimiterString = " | ",
            value = {
                "/reviews?product={id} | 1&admin=true | /reviews?product=1%26admin%3Dtrue",
                "/reviews?product={id} | 1%26admin=true | /reviews?product=1%26admin%3Dtrue",
                "/reviews?product={id} | a+b#c | /reviews?product=a%2Bb%23c",
                "/reviews?product={id} | .. | /reviews?product=..",
                "/products/{id} | a%3Fb | /products/a%3Fb",
                "/products/{id} | a%2Fb | /products/a%2Fb",
                "/products/{id} | a%23b%25 | /products/a%23b%25",
                "/products/{id} | a;b | /products/a%3Bb",
                "/products/{id} | a,b:c@d=e&f | /products/a,b:c@d=e&f",
                "/products/{id} | caf%C3%A9 | /products/caf%C3%A9",
                "/products/{id} | 100% | /products/100%25",
                "/products/{id}.json | .. | /products/...json",
                "/products/x{id} | . | /products/x.",
            })
    void aValueIsEncodedAsOneSegmentInAPathAndOneValueInAQuery(String template, String id, String expanded) {
        assertThat(PathTemplate.parse(template).expand(Map.of("id", id), Map.of(), ""))
                .isEqualTo(expanded);
    }

    /** template | query parameter id (decoded) | expansion. */
    @ParameterizedTest(name = "{0} with ?id={1} -> {2}")
    @CsvSource(
            delimiterString = " | ",
            value = {
                "/products/{id} | a/b | /products/a%2Fb",
                "/products/{id} | a?b | /products/a%3Fb",
                "/products/{id} | ../admin | /products/..%2Fadmin",
                "/reviews?product={id} | 1&admin=true | /reviews?product=1%26admin%3Dtrue",
            })
    void aQueryParameterIsEncodedTheSameWay(String template, String id, String expanded) {
        assertThat(PathTemplate.parse(template).expand(Map.of(), Map.of("id", id), ""))
                .isEqualTo(expanded);
    }

    @ParameterizedTest(name = "{0} with id=''{1}'' is refused")
    @CsvSource(
            delimiterString = " | ",
            value = {
                "/products/{id} | ..",
                "/products/{id} | .",
                "/products/{id} | %2e%2E",
                "/products/{id}/reviews | ..",
                "/products/{id}?x=1 | ..",
                "/products/{id}/ | .",
                "/{id} | ..",
            })
    void aValueThatWouldBeADotSegmentIsRefused(String template, String id) {
        PathTemplate t = PathTemplate.parse(template);
        PathTemplate.UnsafeValueException e = catchThrowableOfType(
                PathTemplate.UnsafeValueException.class, () -> t.expand(Map.of("id", id), Map.of(), ""));
        assertThat(e.variable()).isEqualTo("id");
        assertThat(e).hasMessageContaining("'{id}'");
        PathTemplate.UnsafeValueException fromQuery = catchThrowableOfType(
                PathTemplate.UnsafeValueException.class,
                () -> t.expand(Map.of(), Map.of("id", id.replace("%2e%2E", "..")), ""));
        assertThat(fromQuery).isNotNull();
    }

    @Test
    void anEmptyValueInAPathIsRefused() {
        PathTemplate t = PathTemplate.parse("/products/{id}");
        assertThatThrownBy(() -> t.expand(Map.of(), Map.of("id", ""), ""))
                .isInstanceOf(PathTemplate.UnsafeValueException.class);
        assertThat(PathTemplate.parse("/p?id={id}").expand(Map.of(), Map.of("id", ""), ""))
                .isEqualTo("/p?id=");
        assertThat(PathTemplate.parse("/p/{a}{b}").expand(Map.of(), Map.of("a", "x", "b", ""), ""))
                .isEqualTo("/p/x");
    }

    @Test
    void pathVariablesWinOverQueryParameters() {
        PathTemplate t = PathTemplate.parse("/p/{id}");
        assertThat(t.expand(Map.of("id", "1"), Map.of("id", "2"), "")).isEqualTo("/p/1");
        assertThat(t.expand(Map.of(), Map.of("id", "2"), "")).isEqualTo("/p/2");
    }

    @Test
    void theRemainderIsInsertedVerbatimWithoutADoubleSlash() {
        assertThat(PathTemplate.parse("/v2/{**}").expand(Map.of(), Map.of(), "/orders/1%2F2"))
                .isEqualTo("/v2/orders/1%2F2");
        assertThat(PathTemplate.parse("/v2{**}").expand(Map.of(), Map.of(), "/orders/1"))
                .isEqualTo("/v2/orders/1");
        assertThat(PathTemplate.parse("/v2/{**}").expand(Map.of(), Map.of(), ""))
                .isEqualTo("/v2/");
        assertThat(PathTemplate.parse("/{**}").expand(Map.of(), Map.of(), "/")).isEqualTo("/");
        assertThat(PathTemplate.parse("/v2/{**}").variableNames()).containsExactly(PathTemplate.REMAINDER);
    }

    @Test
    void aMissingValueNamesTheVariable() {
        PathTemplate t = PathTemplate.parse("/route/{id}?mode={mode}");
        PathTemplate.MissingVariableException e = catchThrowableOfType(
                PathTemplate.MissingVariableException.class, () -> t.expand(Map.of("id", "1"), Map.of(), ""));
        assertThat(e.variable()).isEqualTo("mode");
        assertThat(e).hasMessage("missing value for '{mode}': give it as a path variable or query parameter");
    }

    @Test
    void literalTemplatesExpandToThemselves() {
        assertThat(PathTemplate.parse("/a/b?c=d").expand(Map.of(), Map.of(), "/x"))
                .isEqualTo("/a/b?c=d");
        assertThat(PathTemplate.parse("/a/b").variableNames()).isEmpty();
    }

    @Test
    void badTemplatesAreRefusedWithTheReason() {
        assertThatThrownBy(() -> PathTemplate.parse("a")).hasMessage("'a' (expected: a path starting with '/')");
        assertThatThrownBy(() -> PathTemplate.parse("/a/{")).hasMessageContaining("balanced");
        assertThatThrownBy(() -> PathTemplate.parse("/a/}")).hasMessageContaining("'}' only after '{'");
        assertThatThrownBy(() -> PathTemplate.parse("/a/}{b}")).hasMessageContaining("balanced");
        assertThatThrownBy(() -> PathTemplate.parse("/a/{}")).hasMessageContaining("'{name}'");
        assertThatThrownBy(() -> PathTemplate.parse("/a/{*}")).hasMessageContaining("'{name}'");
        // a value after a literal '#' escaped the segment check (found by CoreFuzzTest): no fragment at all
        assertThatThrownBy(() -> PathTemplate.parse("/pr#ucts/{id}")).hasMessageContaining("no '#'");
        assertThatThrownBy(() -> PathTemplate.parse("/p?x=1#y")).hasMessageContaining("no '#'");
    }

    @Test
    void equalityFollowsTheSource() {
        assertThat(PathTemplate.parse("/a/{b}"))
                .isEqualTo(PathTemplate.parse("/a/{b}"))
                .hasToString("/a/{b}");
        assertThat(PathTemplate.parse("/a/{b}")).hasSameHashCodeAs(PathTemplate.parse("/a/{b}"));
        assertThat(PathTemplate.parse("/a/{b}")).isNotEqualTo(PathTemplate.parse("/a/{c}"));
    }
}
