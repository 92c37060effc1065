package dev.sluice.policy;

import dev.sluice.config.FilterConfig;
import java.util.List;
import java.util.Map;

/**
 * {@code ip-filter}: lets a request through by its client's address, as {@link ClientAddress}
 * resolves it (the connection's peer, or behind a trusted proxy the rightmost untrusted {@code
 * X-Forwarded-For} hop). Denied ranges win; with an allow list, only its ranges pass. A refused
 * request gets {@code 403 forbidden} and its upstream sees nothing. With neither list (only {@code
 * trusted-proxies}) it refuses nothing: it names the route's trusted proxies, for its rate limits.
 */
public final class IpFilter implements InboundPolicy {

    private final List<Cidr> allow;
    private final List<Cidr> deny;
    private final ClientAddress client;

    /** Resolving the client with this filter's own {@code trusted-proxies}. */
    public IpFilter(FilterConfig.IpFilter config) {
        this(config, ClientAddress.trusting(config.trustedProxies()));
    }

    /** Resolving the client with the route's {@link ClientAddress}. */
    public IpFilter(FilterConfig.IpFilter config, ClientAddress client) {
        this.allow = config.allow().stream().map(IpFilter::cidr).toList();
        this.deny = config.deny().stream().map(IpFilter::cidr).toList();
        this.client = client;
    }

    private static Cidr cidr(String text) {
        return Cidr.parse(text)
                .orElseThrow(
                        () -> new IllegalArgumentException("ip-filter: '" + text + "' (expected: an address or CIDR)"));
    }

    @Override
    public String name() {
        return "ip-filter";
    }

    @Override
    public Decision admit(Inbound request) {
        if (allow.isEmpty() && deny.isEmpty()) {
            return Decision.Proceed.FREELY;
        }
        String client = client(request);
        if (matches(deny, client) || (!allow.isEmpty() && !matches(allow, client))) {
            return new Decision.Reject(403, "forbidden", "the client address " + client + " is not allowed", Map.of());
        }
        return Decision.Proceed.FREELY;
    }

    /** The client's address ({@link ClientAddress#resolve}). */
    String client(Inbound request) {
        return client.resolve(request);
    }

    private static boolean matches(List<Cidr> ranges, String address) {
        for (Cidr range : ranges) {
            if (range.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
