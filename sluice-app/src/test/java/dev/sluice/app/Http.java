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
