package dev.sluice.policy;

import dev.sluice.config.FilterConfig;
import java.util.List;
import java.util.Map;

/**
 * {@code ip-filter}: lets a request through by its client's address. The client is the connection's
 * peer, unless the peer is a trusted proxy: then {@code X-Forwarded-For} is read from its right end,
 * skipping trusted proxies, and the first address that is not one is the client (nginx's {@code
 * real_ip_recursive}, Envoy's {@code xff_num_trusted_hops} by list). A client-sent {@code
 * X-Forwarded-For} from an untrusted peer is never believed. Denied ranges win; with an allow list,
 * only its ranges pass. A refused request gets {@code 403 forbidden} and its upstream sees nothing.
 */
public final class IpFilter implements InboundPolicy {

    private final List<Cidr> allow;
    private final List<Cidr> deny;
    private final List<Cidr> trusted;

    public IpFilter(FilterConfig.IpFilter config) {
        this.allow = config.allow().stream().map(IpFilter::cidr).toList();
        this.deny = config.deny().stream().map(IpFilter::cidr).toList();
        this.trusted = config.trustedProxies().stream().map(IpFilter::cidr).toList();
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
        String client = client(request);
        if (matches(deny, client) || (!allow.isEmpty() && !matches(allow, client))) {
            return new Decision.Reject(403, "forbidden", "the client address " + client + " is not allowed", Map.of());
        }
        return Decision.Proceed.FREELY;
    }

    /** The client's address, as described above. */
    String client(Inbound request) {
        String peer = request.clientAddress();
        if (trusted.isEmpty() || !matches(trusted, peer)) {
            return peer;
        }
        String forwarded = request.header("X-Forwarded-For");
        if (forwarded == null || forwarded.isBlank()) {
            return peer;
        }
        String[] hops = forwarded.split(",");
        String client = peer;
        for (int i = hops.length - 1; i >= 0; i--) {
            client = hops[i].strip();
            if (!matches(trusted, client)) {
                return client; // the first hop a trusted proxy did not add (or garbage: it matches nothing)
            }
        }
        return client; // every hop trusted: the leftmost
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
