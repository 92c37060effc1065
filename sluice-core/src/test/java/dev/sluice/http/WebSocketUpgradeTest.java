package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ProxyTarget;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WebSocketUpgradeTest {

    private static final ProxyTarget PROXY =
            new ProxyTarget("ws", Optional.empty(), Optional.empty(), Optional.empty());

    private static Map<String, List<String>> handshake() {
        Map<String, List<String>> headers = new HashMap<>();
        headers.put("connection", List.of("keep-alive, Upgrade"));
        headers.put("upgrade", List.of("WebSocket"));
        headers.put("sec-websocket-key", List.of("dGhlIHNhbXBsZSBub25jZQ=="));
        headers.put("sec-websocket-version", List.of("13"));
        return headers;
    }

    private static WebSocketUpgrade of(String method, String version, Map<String, List<String>> headers) {
        return WebSocketUpgrade.of(
                method, version, name -> headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of()));
    }

    @Test
    void aGetOnHttp11WithKeyAndVersionIsAValidHandshakeInAnyCase() {
        WebSocketUpgrade upgrade = of("GET", "HTTP/1.1", handshake());
        assertThat(upgrade.kind()).isEqualTo(WebSocketUpgrade.Kind.VALID);
        assertThat(upgrade.refusal(PROXY)).isNull();
    }

    @Test
    void aRequestThatAsksNothingOrAnotherProtocolIsNoUpgrade() {
        assertThat(of("GET", "HTTP/1.1", Map.of()).requested()).isFalse();
        Map<String, List<String>> h2c = handshake();
        h2c.put("upgrade", List.of("h2c"));
        assertThat(of("GET", "HTTP/1.1", h2c).requested()).isFalse();
        Map<String, List<String>> unlisted = handshake();
        unlisted.put("connection", List.of("keep-alive"));
        assertThat(of("GET", "HTTP/1.1", unlisted).requested())
                .as("Upgrade not named by Connection is only a header")
                .isFalse();
    }

    @Test
    void aMalformedHandshakeIsRefusedWithItsReason() {
        assertThat(of("POST", "HTTP/1.1", handshake()).refusal(PROXY)).contains("GET");
        assertThat(of("GET", "HTTP/1.0", handshake()).refusal(PROXY)).contains("HTTP/1.1");
        Map<String, List<String>> noKey = handshake();
        noKey.remove("sec-websocket-key");
        assertThat(of("GET", "HTTP/1.1", noKey).refusal(PROXY)).contains("Sec-WebSocket-Key");
        Map<String, List<String>> noVersion = handshake();
        noVersion.remove("sec-websocket-version");
        assertThat(of("GET", "HTTP/1.1", noVersion).refusal(PROXY)).contains("Sec-WebSocket-Version");
        Map<String, List<String>> body = handshake();
        body.put("content-length", List.of("5"));
        assertThat(of("GET", "HTTP/1.1", body).refusal(PROXY)).contains("no body");
        Map<String, List<String>> empty = handshake();
        empty.put("content-length", List.of("0"));
        assertThat(of("GET", "HTTP/1.1", empty).refusal(PROXY)).isNull();
    }

    @Test
    void onlyA101NamingWebsocketSwitches() {
        assertThat(WebSocketUpgrade.switched(101, List.of("websocket"))).isTrue();
        assertThat(WebSocketUpgrade.switched(101, List.of("h2c"))).isFalse();
        assertThat(WebSocketUpgrade.switched(200, List.of("websocket"))).isFalse();
    }

    @Test
    void aTunnelledRequestSkipsA100AndA103ButNotA101WhichMustNameWebsocket() {
        assertThat(WebSocketUpgrade.skipped(100)).isTrue();
        assertThat(WebSocketUpgrade.skipped(103)).isTrue();
        assertThat(WebSocketUpgrade.skipped(101)).isFalse();
        assertThat(WebSocketUpgrade.skipped(200)).isFalse();
        assertThat(WebSocketUpgrade.switchProblem(101, List.of("h2c"))).contains("other than websocket");
        assertThat(WebSocketUpgrade.switchProblem(101, List.of("WebSocket"))).isNull();
        assertThat(WebSocketUpgrade.switchProblem(403, List.of())).isNull();
        assertThat(WebSocketUpgrade.upgradeHeader("UPGRADE")).isTrue();
        assertThat(WebSocketUpgrade.upgradeHeader("upgrade-insecure-requests")).isFalse();
    }
}
