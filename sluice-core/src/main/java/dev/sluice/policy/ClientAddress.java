package dev.sluice.policy;

import dev.sluice.config.FilterConfig;
import dev.sluice.config.RouteConfig;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Who a route's client is: the connection's peer, unless the peer is one of the route's trusted
 * proxies (the {@code trusted-proxies} of its {@code ip-filter}): then {@code X-Forwarded-For} is
 * read from its right end, skipping trusted proxies, and the first address that is not one is the
 * client (nginx's {@code real_ip_recursive}, Envoy's {@code xff_num_trusted_hops} by list). A
 * client-sent {@code X-Forwarded-For} from an untrusted peer is never believed. Decided here once
 * for every policy that asks: {@code ip-filter} and the {@code rate-limit} key {@code
 * client-address}.
 */
public final class ClientAddress {

    /** No trusted proxy: the client is the connection's peer. */
    public static final ClientAddress PEER = new ClientAddress(List.of());

    private final Cidr[] trusted;

    private ClientAddress(List<Cidr> trusted) {
        this.trusted = trusted.toArray(Cidr[]::new);
    }

    /** Trusting the proxies at these addresses or CIDR ranges (already validated). */
    public static ClientAddress trusting(List<String> proxies) {
        if (proxies.isEmpty()) {
            return PEER;
        }
        List<Cidr> ranges = new ArrayList<>();
        for (String text : proxies) {
            ranges.add(Cidr.parse(text)
                    .orElseThrow(() -> new IllegalArgumentException(
                            "trusted-proxies: '" + text + "' (expected: an address or CIDR)")));
        }
        return new ClientAddress(ranges);
    }

    /** The route's: trusting the {@code trusted-proxies} of every {@code ip-filter} it has. */
    public static ClientAddress of(RouteConfig route) {
        Set<String> proxies = new LinkedHashSet<>();
        for (FilterConfig filter : route.filters()) {
            if (filter instanceof FilterConfig.IpFilter ip) {
                proxies.addAll(ip.trustedProxies());
            }
        }
        return trusting(List.copyOf(proxies));
    }

    /** The client's address as a literal, or the untrusted hop as sent (which matches no range) . */
    public String resolve(InboundPolicy.Inbound request) {
        String peer = request.clientAddress();
        if (trusted.length == 0 || !trusts(peer)) {
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
            if (!trusts(client)) {
                return client; // the first hop a trusted proxy did not add (or garbage: it matches nothing)
            }
        }
        return client; // every hop trusted: the leftmost
    }

    private boolean trusts(String address) {
        for (Cidr range : trusted) {
            if (range.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
