package dev.sluice.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PathTemplateTest {

    @Test
    void pathVariablesAreInsertedRawAndQueryValuesEncoded() {
        PathTemplate t = PathTemplate.parse("/reviews/{id}?product={id}&q={q}");
        assertThat(t.variableNames()).containsExactly("id", "q");
        assertThat(t.expand(Map.of("id", "p%201"), Map.of("q", "caf\u00e9 & more/~x"), ""))
                .isEqualTo("/reviews/p%201?product=p%201&q=caf%C3%A9%20%26%20more%2F~x");
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
