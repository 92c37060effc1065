package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PseudoHeadersTest {

    @Test
    void aRequestHasMethodSchemeAndANonEmptyPath() {
        assertThat(PseudoHeaders.wellFormed("GET", "https", "/a", null, false)).isTrue();
        assertThat(PseudoHeaders.wellFormed(null, "https", "/a", "h", false)).isFalse();
        assertThat(PseudoHeaders.wellFormed("GET", null, "/a", "h", false)).isFalse();
        assertThat(PseudoHeaders.wellFormed("GET", "https", "", "h", false)).isFalse();
        assertThat(PseudoHeaders.wellFormed("GET", "https", null, "h", false)).isFalse();
    }

    @Test
    void aConnectHasAnAuthorityAndNeitherSchemeNorPathUnlessItIsExtended() {
        assertThat(PseudoHeaders.wellFormed("CONNECT", null, null, "h:443", false))
                .isTrue();
        assertThat(PseudoHeaders.wellFormed("CONNECT", null, null, null, false)).isFalse();
        assertThat(PseudoHeaders.wellFormed("CONNECT", "https", "/", "h:443", false))
                .isFalse();
        assertThat(PseudoHeaders.wellFormed("CONNECT", "https", "/chat", "h", true))
                .isTrue();
        assertThat(PseudoHeaders.wellFormed("CONNECT", null, null, "h", true)).isFalse();
    }
}
