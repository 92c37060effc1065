package dev.sluice.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedirectLocationTest {

    @Test
    void fillsHostPathVariablesAndRemainderAndKeepsTheQuery() {
        var match = ProxyPathTest.match("/old/{id}/**", "/old/7/a//b/./c");
        assertThat(RedirectLocation.parse("https://{host}/new/{id}/{**}").expand(match, "shop.test:8443", "q=1", true))
                .isEqualTo("https://shop.test/new/7/a/b/c?q=1");
        assertThat(RedirectLocation.parse("/n?from={path}").expand(match, null, "q=1", true))
                .isEqualTo("/n?from=old/7/a/b/c&q=1");
        assertThat(RedirectLocation.https().expand(match, "[::1]:8080", null, true))
                .isEqualTo("https://[::1]/old/7/a/b/c");
    }

    @Test
    void aValueInTheQueryCannotAddParameters() {
        var match = ProxyPathTest.match("/p/{id}", "/p/a&admin=1");
        assertThat(RedirectLocation.parse("/q?id={id}").expand(match, null, null, true))
                .isEqualTo("/q?id=a%26admin%3D1");
    }

    @Test
    void aHostThatIsNotPlainOrALocationOnAnotherHostIsRefused() {
        var match = ProxyPathTest.match("/**", "/x");
        assertThatThrownBy(() -> RedirectLocation.https().expand(match, "evil.test%2Fx", null, true))
                .isInstanceOf(PathTemplate.RefusedValueException.class);
        assertThatThrownBy(() -> RedirectLocation.https().expand(match, null, null, true))
                .isInstanceOf(PathTemplate.MissingVariableException.class);
        var root = ProxyPathTest.match("/**", "/");
        assertThat(RedirectLocation.parse("/{path}").expand(root, null, null, true))
                .isEqualTo("/");
        assertThatThrownBy(() -> RedirectLocation.parse("//{host}")).isInstanceOf(IllegalArgumentException.class);
    }
}
