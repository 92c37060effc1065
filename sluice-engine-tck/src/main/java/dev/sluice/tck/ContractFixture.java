package dev.sluice.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.compose.PartRules;
import dev.sluice.config.EngineMode;
import dev.sluice.config.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * What every group of contract tests shares: the engine mode under test, one {@link TestUpstream}
 * per group, gateways built per test with routes declared in the test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class ContractFixture {

    /** The name of the upstream every {@link #gateway()} declares: {@link #upstream}. */
    protected static final String APP = "app";

    protected TestUpstream upstream;

    /** The engine mode the suite runs against. */
    protected abstract EngineMode mode();

    /** The socket transport the suite runs on ({@code server.transport}). */
    protected Transport transport() {
        return Transport.AUTO;
    }

    @BeforeAll
    void startUpstream() {
        upstream = TestUpstream.start();
    }

    @AfterAll
    void stopUpstream() {
        upstream.close();
    }

    /** A gateway configuration with the upstream {@code app} declared. */
    protected TestGateway.Builder gateway() {
        return TestGateway.builder(mode()).transport(transport()).upstream(APP, upstream.url());
    }

    /** A gateway configuration whose one route proxies every path to {@code recording}. */
    protected TestGateway.Builder proxyingAllTo(RecordingUpstream recording) {
        return gateway()
                .upstream("recording", recording.url())
                .route("all", Routes.on("/**"), Routes.proxy("recording"));
    }

    /** A URL on 127.0.0.1 where nothing listens. */
    protected static URI refusedUrl() {
        return RefusingPort.shared().url();
    }

    protected HttpResponse<byte[]> get(TestGateway gateway, String target) {
        return send(gateway, HttpRequest.newBuilder(gateway.uri(target)).GET());
    }

    /** Sends with the gateway's {@code java.net.http} client (HTTP/1.1, keep-alive). */
    protected HttpResponse<byte[]> send(TestGateway gateway, HttpRequest.Builder request) {
        try {
            return gateway.http()
                    .send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException("client: " + request.build() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("client: interrupted", e);
        }
    }

    protected static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    /** The upstream's {@code /inspect} answer, relayed by the gateway: what the upstream received. */
    protected static Map<String, Object> inspected(HttpResponse<byte[]> response) {
        assertThat(response.statusCode())
                .as("status of %s: %s", response.uri(), text(response))
                .isEqualTo(200);
        return Json.object(response.body());
    }

    /** The values the upstream received for header {@code lowerCaseName}, or an empty list. */
    @SuppressWarnings("unchecked")
    protected static List<String> headerValues(Map<String, Object> inspected, String lowerCaseName) {
        Map<String, Object> headers = (Map<String, Object>) inspected.get("headers");
        Object values = headers.get(lowerCaseName);
        return values == null
                ? List.of()
                : ((List<Object>) values).stream().map(String::valueOf).toList();
    }

    /** Asserts a gateway error: the status, a JSON Content-Type and an ErrorBody with {@code code}. */
    protected static Map<String, Object> assertError(int status, String contentType, byte[] body, String code) {
        assertThat(contentType).as("Content-Type of a %d", status).isNotNull();
        assertThat(PartRules.isJson(contentType) && contentType.startsWith("application/json"))
                .as("Content-Type '%s' is application/json", contentType)
                .isTrue();
        Map<String, Object> json = Json.object(body);
        assertThat(json.keySet()).containsExactly("status", "error", "message");
        assertThat(json.get("status")).hasToString(Integer.toString(status));
        assertThat(json.get("error")).isEqualTo(code);
        assertThat(json.get("message")).asString().isNotBlank();
        return json;
    }

    protected static Map<String, Object> assertError(HttpResponse<byte[]> response, int status, String code) {
        assertThat(response.statusCode()).as("status, body %s", text(response)).isEqualTo(status);
        return assertError(status, response.headers().firstValue("content-type").orElse(null), response.body(), code);
    }

    protected static Map<String, Object> assertError(WireResponse response, int status, String code) {
        assertThat(response.status()).as("status of %s", response).isEqualTo(status);
        assertThat(response.complete())
                .as("an error body ends cleanly: %s", response)
                .isTrue();
        return assertError(status, response.header("content-type").orElse(null), response.body(), code);
    }
}
