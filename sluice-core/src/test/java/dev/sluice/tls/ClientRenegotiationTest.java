package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClientRenegotiationTest {

    private static final int CHANGE_CIPHER_SPEC = 20;
    private static final int ALERT = 21;
    private static final int APPLICATION_DATA = 23;

    @Test
    void aHandshakeRecordAfterATls12HandshakeIsARenegotiation() {
        assertThat(ClientRenegotiation.refused(ClientRenegotiation.HANDSHAKE_RECORD, true, "TLSv1.2"))
                .isTrue();
    }

    @Test
    void theFirstHandshakesOwnRecordsAreNot() {
        assertThat(ClientRenegotiation.refused(ClientRenegotiation.HANDSHAKE_RECORD, false, "TLSv1.2"))
                .isFalse();
        assertThat(ClientRenegotiation.refused(ClientRenegotiation.HANDSHAKE_RECORD, false, "NONE"))
                .isFalse();
        assertThat(ClientRenegotiation.refused(ClientRenegotiation.HANDSHAKE_RECORD, true, null))
                .isFalse();
    }

    @Test
    void otherRecordsAfterTheHandshakeAreNot() {
        for (int type : new int[] {CHANGE_CIPHER_SPEC, ALERT, APPLICATION_DATA, 24}) {
            assertThat(ClientRenegotiation.refused(type, true, "TLSv1.2"))
                    .as("content type %d", type)
                    .isFalse();
        }
    }

    @Test
    void tls13HasNoRenegotiationToRefuse() {
        // TLS 1.3's post-handshake messages (KeyUpdate, NewSessionTicket) travel as application data
        // records; a record typed handshake is left to the SSLEngine, which refuses it itself
        assertThat(ClientRenegotiation.possible("TLSv1.3")).isFalse();
        assertThat(ClientRenegotiation.refused(ClientRenegotiation.HANDSHAKE_RECORD, true, "TLSv1.3"))
                .isFalse();
        assertThat(ClientRenegotiation.possible("TLSv1.2")).isTrue();
    }
}
