package dev.sluice.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PathRewriteTest {

    @Test
    void replacesTheFirstMatchWithGroupsAndLeavesOtherPathsAlone() {
        PathRewrite rewrite = PathRewrite.of("^/api/(?<v>v[0-9]+)/(.*)", "/${v}/svc/$2");
        assertThat(rewrite.apply("/api/v2/orders/7")).isEqualTo("/v2/svc/orders/7");
        assertThat(rewrite.apply("/other")).isEqualTo("/other");
    }

    @Test
    void aResultThatIsNotANormalisedPathIsRefused() {
        PathRewrite rewrite = PathRewrite.of("^/a/x([^/]*)", "/b/$1/c");
        assertThat(rewrite.apply("/a/xy")).isEqualTo("/b/y/c");
        for (String path : new String[] {"/a/x.", "/a/x..", "/a/x"}) { // '.', '..', an empty segment
            assertThatThrownBy(() -> rewrite.apply(path))
                    .as(path)
                    .isInstanceOf(PathTemplate.RefusedValueException.class);
        }
        assertThatThrownBy(() -> PathRewrite.of("^/(.*)", "$1").apply("/x"))
                .as("not absolute")
                .isInstanceOf(PathTemplate.RefusedValueException.class);
    }

    @Test
    void theReplacementIsCheckedAgainstTheRegexAtLoad() {
        assertThatThrownBy(() -> PathRewrite.of("^/a/(.*)", "/b/$2"))
                .hasMessage("'/b/$2' refers to $2 but the regex has 1 group (expected: $0 to $1)");
        assertThatThrownBy(() -> PathRewrite.of("^/a/(.*)", "/b/${x}"))
                .hasMessage("'/b/${x}' refers to ${x}, a group the regex does not have (expected: no named group)");
        assertThatThrownBy(() -> PathRewrite.of("^/a/(.*)", "/b?$1")).hasMessageContaining("'?'");
        assertThatThrownBy(() -> PathRewrite.of("^/a/(", "/b")).hasMessageContaining("not a valid regular expression");
    }
}
