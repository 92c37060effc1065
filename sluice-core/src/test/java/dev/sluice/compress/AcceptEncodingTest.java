package dev.sluice.compress;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AcceptEncodingTest {

    private static final Coding[] GZIP_ONLY = {Coding.GZIP};

    @ParameterizedTest(name = "[{0}] -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "gzip | true",
                "GZip | true",
                "x-gzip | true",
                "gzip, deflate, br, zstd | true",
                "br;q=1.0, gzip;q=0.8, *;q=0.1 | true",
                "deflate , gzip ; q=0.5 | true",
                "gzip;q=0 | false",
                "gzip;q=0.000 | false",
                "gzip;Q=0.0, *;q=1 | false",
                "*;q=0.1 | true",
                "* | true",
                "*;q=0 | false",
                "identity | false",
                "identity;q=0 | false",
                "identity;q=0, gzip | true",
                "br, deflate | false",
                "gzipx | false",
                "gzip;q=2 | false",
                "gzip;q=0.5x | false",
                "gzip;level=1;q=0.3 | true",
                "'' | false",
            })
    void gzipIsAcceptedByItsQValueOrTheWildcards(String header, boolean accepted) {
        assertThat(AcceptEncoding.choose(header, GZIP_ONLY)).isEqualTo(accepted ? Coding.GZIP : null);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            nullValues = "-",
            value = {
                "zstd, gzip               | zstd",
                "gzip, zstd               | zstd", // the route's order breaks the tie, not the client's
                "gzip;q=1, zstd;q=0.9     | gzip",
                "zstd;q=0, gzip;q=0.1     | gzip",
                "x-gzip                   | gzip",
                "*                        | zstd",
                "*;q=0.5, zstd;q=0.2      | gzip", // gzip takes *'s 0.5
                "zstd;q=0, *;q=0          | -",
                "br, deflate, identity    | -",
            })
    void theRoutesCodingWithTheHighestQValueIsChosen(String header, String chosen) {
        Coding[] offered = {Coding.ZSTD, Coding.GZIP};
        Coding coding = AcceptEncoding.choose(header, offered);
        assertThat(coding == null ? null : coding.token()).isEqualTo(chosen);
    }

    @org.junit.jupiter.api.Test
    void noHeaderAcceptsNone() {
        assertThat(AcceptEncoding.choose(null, GZIP_ONLY)).isNull();
    }
}
