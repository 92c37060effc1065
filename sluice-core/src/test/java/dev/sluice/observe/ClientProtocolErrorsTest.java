package dev.sluice.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClientProtocolErrorsTest {

    private final AtomicLong clock = new AtomicLong(123_456_789L);
    private final List<String> lines = new ArrayList<>();
    private final Map<ClientProtocolError, Integer> counted = new EnumMap<>(ClientProtocolError.class);
    private final ClientProtocolErrors errors = new ClientProtocolErrors(
            new GatewayObserver() {
                @Override
                public void clientProtocolError(ClientProtocolError kind) {
                    counted.merge(kind, 1, Integer::sum);
                }
            },
            clock::get,
            lines::add);

    @Test
    void everyErrorIsCountedAndEachKindLoggedOnceAMinute() {
        for (int i = 0; i < 1000; i++) {
            errors.report(ClientProtocolError.TLS_HANDSHAKE, new javax.net.ssl.SSLHandshakeException("x"));
            errors.report(ClientProtocolError.HTTP2, null);
            clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(10)); // 10 s in all
        }
        assertThat(counted)
                .containsEntry(ClientProtocolError.TLS_HANDSHAKE, 1000)
                .containsEntry(ClientProtocolError.HTTP2, 1000);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).contains("(tls_handshake)").contains("SSLHandshakeException");
        assertThat(lines.get(1)).contains("(http2)");

        clock.addAndGet(TimeUnit.SECONDS.toNanos(50)); // a minute after the first line
        errors.report(ClientProtocolError.TLS_HANDSHAKE, null);
        assertThat(lines).hasSize(3);
        assertThat(lines.get(2)).contains("(tls_handshake)").contains("999 more of this kind");
        errors.report(ClientProtocolError.TLS_HANDSHAKE, null);
        assertThat(lines).hasSize(3);
    }

    @Test
    void aLineNamesTheErrorsClassNeverItsMessage() {
        errors.report(
                ClientProtocolError.PLAIN_HTTP_ON_TLS,
                new IllegalArgumentException("not an SSL/TLS record: 474554 Authorization: Bearer secret"));
        assertThat(lines)
                .singleElement()
                .asString()
                .doesNotContain("secret")
                .doesNotContain("474554")
                .contains("IllegalArgumentException");
    }

    @Test
    void anHttp2ErrorIsTheClientsWhenItsCodeSaysTheClientBrokeTheProtocol() {
        // RFC 9113 section 7
        for (long clients : new long[] {0x1, 0x3, 0x4, 0x5, 0x6, 0x9, 0xb}) {
            assertThat(ClientProtocolError.http2ErrorCode(clients))
                    .as("code 0x%x", clients)
                    .isTrue();
        }
        for (long gateways : new long[] {0x0, 0x2, 0x7, 0x8, 0xa, 0xc, 0xd, 0xe, 0xffff_ffffL}) {
            assertThat(ClientProtocolError.http2ErrorCode(gateways))
                    .as("code 0x%x", gateways)
                    .isFalse();
        }
    }
}
