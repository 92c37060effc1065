package dev.sluice.policy;

import static java.util.Objects.requireNonNull;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A test fixture: a request given by its facts instead of read off an engine's, what benchmarks and tests
 * hand a policy. Header names are matched case-insensitively.
 *
 * @param headers header values by name (any case)
 * @param attributes what earlier policies of a chain established ({@code claim:sub}, {@code api-key})
 */
public record GivenRequest(
        String method,
        String path,
        String route,
        String query,
        String clientAddress,
        Map<String, String> headers,
        Map<String, String> attributes)
        implements InboundPolicy.Inbound {

    public GivenRequest {
        requireNonNull(method, "method");
        requireNonNull(path, "path");
        requireNonNull(route, "route");
        requireNonNull(clientAddress, "clientAddress");
        Map<String, String> lower = new HashMap<>();
        headers.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
        headers = Map.copyOf(lower);
        attributes = Map.copyOf(attributes);
    }

    /** {@code GET /} on route {@code r} from {@code clientAddress}, with no header, query or attribute. */
    public static GivenRequest from(String clientAddress) {
        return new GivenRequest("GET", "/", "r", null, clientAddress, Map.of(), Map.of());
    }

    public GivenRequest withHeaders(Map<String, String> more) {
        Map<String, String> all = new HashMap<>(headers);
        more.forEach((k, v) -> all.put(k.toLowerCase(Locale.ROOT), v));
        return new GivenRequest(method, path, route, query, clientAddress, all, attributes);
    }

    public GivenRequest withQuery(String rawQuery) {
        return new GivenRequest(method, path, route, rawQuery, clientAddress, headers, attributes);
    }

    public GivenRequest withAttributes(Map<String, String> more) {
        Map<String, String> all = new HashMap<>(attributes);
        all.putAll(more);
        return new GivenRequest(method, path, route, query, clientAddress, headers, all);
    }

    @Override
    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    @Override
    public String attribute(String name) {
        return attributes.get(name);
    }
}
