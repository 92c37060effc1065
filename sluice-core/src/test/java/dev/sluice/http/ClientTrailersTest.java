package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClientTrailersTest {

    @Test
    void everyHttp2ClientAndAnHttp11OneWhoseTeListsTheToken() {
        assertThat(ClientTrailers.accepted(true, List.of())).isTrue();
        assertThat(ClientTrailers.accepted(false, List.of())).isFalse();
        assertThat(ClientTrailers.accepted(false, List.of("trailers"))).isTrue();
        assertThat(ClientTrailers.accepted(false, List.of("gzip;q=0.5, Trailers")))
                .isTrue();
        assertThat(ClientTrailers.accepted(false, List.of("gzip", "trailers")))
                .as("in a second field")
                .isTrue();
        assertThat(ClientTrailers.accepted(false, List.of("x-trailers"))).isFalse();
        assertThat(ClientTrailers.accepted(false, List.of("trailersx, gzip"))).isFalse();
    }
}
