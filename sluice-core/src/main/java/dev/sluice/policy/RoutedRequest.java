package dev.sluice.policy;

import dev.sluice.routing.RouteTable;
import java.util.function.Function;

/**
 * What every engine hands its policies: a routed request, its headers read through the engine's own
 * header lookup (nothing is copied).
 *
 * @param headers the first value of a request header by name, or null
 * @param query the raw query string without the '?', or null
 * @param clientAddress the peer's IP address as a literal
 */
public record RoutedRequest(
        String method,
        RouteTable.Result.Matched matched,
        Function<String, String> headers,
        String query,
        String clientAddress)
        implements InboundPolicy.Inbound {

    @Override
    public String path() {
        return matched.path();
    }

    @Override
    public String header(String name) {
        return headers.apply(name);
    }

    @Override
    public String route() {
        return matched.route().id();
    }
}
