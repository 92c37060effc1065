package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
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

    @Test
    void aTargetHasNoSpaceOrControlByteAndAHostFieldNamesTheAuthority() {
        assertThat(PseudoHeaders.targetSound("/a?b=c", "h", null)).isTrue();
        assertThat(PseudoHeaders.targetSound("/a", "h:8080", "H:8080")).isTrue();
        assertThat(PseudoHeaders.targetSound("/a", null, "h"))
                .as("no :authority: Host stands alone")
                .isTrue();
        assertThat(PseudoHeaders.targetSound(null, "h:443", null))
                .as("CONNECT has no :path")
                .isTrue();
        assertThat(PseudoHeaders.targetSound("/a b", "h", null)).isFalse();
        assertThat(PseudoHeaders.targetSound("/a\tb", "h", null)).isFalse();
        assertThat(PseudoHeaders.targetSound("/a\u007Fb", "h", null)).isFalse();
        assertThat(PseudoHeaders.targetSound("/a", "h", "other")).isFalse();
    }

    @Test
    void connectionSpecificFieldsAreTheSixOfRfc9113AnyCase() {
        for (String name :
                List.of("Connection", "keep-alive", "Proxy-Connection", "transfer-encoding", "Upgrade", "TE")) {
            assertThat(PseudoHeaders.connectionSpecific(name)).as(name).isTrue();
            assertThat(PseudoHeaders.notATrailer(name)).as(name).isTrue();
        }
        assertThat(PseudoHeaders.connectionSpecific("content-type")).isFalse();
        assertThat(PseudoHeaders.connectionSpecific("host")).isFalse(); // :authority's: the engine moves it
        assertThat(PseudoHeaders.notATrailer("Content-Length")).isTrue();
        assertThat(PseudoHeaders.notATrailer("trailer")).isTrue();
        assertThat(PseudoHeaders.notATrailer("grpc-status")).isFalse();
    }

    @Test
    void aRequestOverH2LeavesOutTheConnectionSpecificFieldsAndHost() {
        for (String name :
                List.of("connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te")) {
            assertThat(PseudoHeaders.notSentOverH2(name)).as(name).isTrue();
        }
        assertThat(PseudoHeaders.notSentOverH2("host"))
                .as("the :authority stands for it")
                .isTrue();
        assertThat(PseudoHeaders.notSentOverH2("content-type")).isFalse();
        assertThat(PseudoHeaders.notSentOverH2("x-forwarded-host")).isFalse();
    }
}
