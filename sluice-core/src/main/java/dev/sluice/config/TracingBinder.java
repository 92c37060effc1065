package dev.sluice.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;

/** Binds {@code tracing:}, where spans are exported. */
final class TracingBinder {

    private TracingBinder() {}

    static Optional<TracingConfig> tracing(Mapping root) {
        if (!root.has("tracing")) {
            return Optional.empty();
        }
        Optional<Mapping> tracing = root.mapping("tracing", "a mapping with otlp");
        Optional<Mapping> otlp = tracing.flatMap(t -> {
            t.allowOnly("otlp");
            if (!t.has("otlp")) {
                t.problem("otlp", "missing (expected: a mapping with endpoint)");
                return Optional.empty();
            }
            return t.mapping("otlp", "a mapping with endpoint");
        });
        if (otlp.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = otlp.get();
        m.allowOnly("endpoint");
        String expected = "an http:// or https:// URL such as http://collector:4318/v1/traces";
        return m.requiredString("endpoint", expected).flatMap(text -> {
            URI uri;
            try {
                uri = new URI(text);
            } catch (URISyntaxException e) {
                m.problem("endpoint", "'" + Redact.url(text) + "' (expected: " + expected + ")");
                return Optional.empty();
            }
            String scheme = uri.getScheme();
            if (!("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
                    || uri.getHost() == null
                    || uri.getPort() > 65535) {
                m.problem("endpoint", "'" + Redact.url(text) + "' (expected: " + expected + ")");
                return Optional.empty();
            }
            return Optional.of(new TracingConfig(uri));
        });
    }
}
