package dev.sluice.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

/** CIDR matching without DNS, and the client address behind trusted proxies. */
class IpFilterTest {

    private static InboundPolicy.Inbound from(String peer, String forwardedFor) {
        GivenRequest request = GivenRequest.from(peer);
        return forwardedFor == null ? request : request.withHeaders(java.util.Map.of("X-Forwarded-For", forwardedFor));
    }

    @Test
    void rangesMatchByPrefixInBothFamiliesAndNeverResolveNames() {
        Cidr ten = Cidr.parse("10.0.0.0/8").orElseThrow();
        assertThat(ten.contains("10.255.1.2")).isTrue();
        assertThat(ten.contains("11.0.0.1")).isFalse();
        assertThat(ten.contains("::ffff:10.1.2.3")).as("IPv4-mapped IPv6").isTrue();
        assertThat(ten.contains("[::ffff:10.1.2.3]")).isTrue();
        Cidr v6 = Cidr.parse("2001:db8::/32").orElseThrow();
        assertThat(v6.contains("2001:db8:ffff::1")).isTrue();
        assertThat(v6.contains("2001:db9::1")).isFalse();
        assertThat(v6.contains("10.0.0.1")).isFalse();
        assertThat(Cidr.parse("192.168.1.7").orElseThrow().contains("192.168.1.7"))
                .isTrue();
        assertThat(Cidr.parse("192.168.1.7").orElseThrow().contains("192.168.1.8"))
                .isFalse();
        assertThat(Cidr.parse("0.0.0.0/0").orElseThrow().contains("8.8.8.8")).isTrue();
        assertThat(Cidr.parse("10.0.0.0/33")).isEmpty();
        assertThat(Cidr.parse("localhost")).as("a name, not a literal").isEmpty();
        assertThat(Cidr.parse("10.0.0.0/")).isEmpty();
        assertThat(Cidr.parse("10.0.0/8")).isEmpty();
        assertThat(ten.contains("localhost")).isFalse();
        assertThat(ten.contains("unknown")).isFalse();
    }

    @Test
    void denyWinsAndAnAllowListLetsOnlyItsRangesThrough() {
        IpFilter filter =
                new IpFilter(new FilterConfig.IpFilter(List.of("10.0.0.0/8"), List.of("10.9.0.0/16"), List.of()));
        assertThat(filter.admit(from("10.1.2.3", null))).isInstanceOf(Decision.Proceed.class);
        Decision denied = filter.admit(from("10.9.0.1", null));
        assertThat(denied).isInstanceOfSatisfying(Decision.Reject.class, r -> {
            assertThat(r.status()).isEqualTo(403);
            assertThat(r.code()).isEqualTo("forbidden");
        });
        assertThat(filter.admit(from("192.168.0.1", null))).isInstanceOf(Decision.Reject.class);
    }

    @Test
    void forwardedForIsBelievedOnlyFromTrustedProxiesReadFromTheRight() {
        IpFilter filter = new IpFilter(
                new FilterConfig.IpFilter(List.of(), List.of("203.0.113.0/24"), List.of("10.0.0.0/8", "172.16.0.1")));
        // a client that forges X-Forwarded-For straight to the gateway is its own address
        assertThat(filter.client(from("198.51.100.7", "203.0.113.9"))).isEqualTo("198.51.100.7");
        assertThat(filter.admit(from("198.51.100.7", "203.0.113.9"))).isInstanceOf(Decision.Proceed.class);
        // behind two trusted proxies: the first untrusted hop from the right
        assertThat(filter.client(from("10.0.0.5", "1.1.1.1, 203.0.113.9, 172.16.0.1")))
                .isEqualTo("203.0.113.9");
        assertThat(filter.admit(from("10.0.0.5", "1.1.1.1, 203.0.113.9, 172.16.0.1")))
                .isInstanceOf(Decision.Reject.class);
        // a forged left part cannot hide the real client
        assertThat(filter.client(from("10.0.0.5", "8.8.8.8, 198.51.100.7"))).isEqualTo("198.51.100.7");
        // all hops trusted: the leftmost; none: the peer
        assertThat(filter.client(from("10.0.0.5", "10.0.0.9"))).isEqualTo("10.0.0.9");
        assertThat(filter.client(from("10.0.0.5", null))).isEqualTo("10.0.0.5");
        // garbage in the header is no address: it matches nothing
        assertThat(filter.client(from("10.0.0.5", "not-an-ip"))).isEqualTo("not-an-ip");
        IpFilter allowOnly =
                new IpFilter(new FilterConfig.IpFilter(List.of("198.51.100.0/24"), List.of(), List.of("10.0.0.0/8")));
        assertThat(allowOnly.admit(from("10.0.0.5", "not-an-ip"))).isInstanceOf(Decision.Reject.class);
    }
}
