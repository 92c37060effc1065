package dev.sluice.app;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/** A small HTTP client for the end-to-end tests. */
final class Http {

    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Http() {}

    static HttpResponse<String> get(URI uri) throws Exception {
        return CLIENT.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(URI base, String pathAndQuery) throws Exception {
        return get(URI.create(base + pathAndQuery));
    }

    /**
     * Writes {@code head} as it is (a malformed one, say) on a new connection to {@code base} and
     * returns everything the gateway sent until it closed the connection (or reset it: a gateway that
     * refuses a head may close before reading all of it).
     */
    static String raw(URI base, String head) throws Exception {
        try (java.net.Socket socket = new java.net.Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(20_000);
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    socket.getOutputStream().write(head.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                    socket.getOutputStream().flush();
                } catch (java.io.IOException refusedEarly) {
                    // the gateway answered and closed before it read everything
                }
            });
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            try {
                for (int n; (n = socket.getInputStream().read(buffer)) >= 0; ) {
                    got.write(buffer, 0, n);
                }
            } catch (java.net.SocketException reset) {
                if (got.size() == 0) {
                    throw reset;
                }
            }
            writer.join(Duration.ofSeconds(5));
            return got.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }

    /** Parses a JSON array. */
    @SuppressWarnings("unchecked")
    static java.util.List<Object> jsonList(String text) {
        return (java.util.List<Object>) new Load(LoadSettings.builder().build()).loadFromString(text);
    }

    /** Parses JSON (YAML 1.2 is a superset of it); throws when the text is not one document. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> json(String text) {
        return (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(text);
    }
}
