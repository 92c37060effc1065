package dev.sluice.compress;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CompressionTest {

    private static final Compression JSON = Compression.of(FilterConfig.Compression.defaults());
    private static final Compression TEXT =
            Compression.of(new FilterConfig.Compression(List.of("text/*", "application/xml"), 0, 1));

    /** A head in a case-insensitive map, as both engines keep theirs. */
    private static final class Head implements Compression.ResponseHead {
        final Map<String, String> fields = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);

        Head(String... pairs) {
            for (int i = 0; i < pairs.length; i += 2) {
                fields.put(pairs[i], pairs[i + 1]);
            }
        }

        @Override
        public String get(String name) {
            return fields.get(name);
        }

        @Override
        public void set(String name, String value) {
            fields.put(name, value);
        }

        @Override
        public void remove(String name) {
            fields.remove(name);
        }
    }

    @Test
    void aWantedEligibleResponseIsGzipStreamedWithAWeakETagAndVary() {
        Head head = new Head(
                "Content-Type", "application/json; charset=utf-8",
                "Content-Length", "5000",
                "ETag", "\"abc\"",
                "Vary", "Origin");
        assertThat(JSON.begin(Coding.GZIP, 200, head)).isTrue();
        assertThat(head.fields)
                .containsEntry("Content-Encoding", "gzip")
                .containsEntry("ETag", "W/\"abc\"")
                .containsEntry("Vary", "Origin, Accept-Encoding")
                .doesNotContainKey("Content-Length");
        Head weak = new Head("Content-Type", "application/json", "ETag", "W/\"x\"", "Vary", "accept-encoding");
        assertThat(JSON.begin(Coding.GZIP, 404, weak)).isTrue();
        assertThat(weak.fields).containsEntry("ETag", "W/\"x\"").containsEntry("Vary", "accept-encoding");
    }

    @Test
    void anEligibleResponseNotWantedGetsOnlyVary() {
        Head head = new Head("Content-Type", "application/json", "Content-Length", "5000", "ETag", "\"abc\"");
        assertThat(JSON.begin(null, 200, head)).isFalse();
        assertThat(head.fields)
                .containsEntry("Vary", "Accept-Encoding")
                .containsEntry("Content-Length", "5000")
                .containsEntry("ETag", "\"abc\"")
                .doesNotContainKey("Content-Encoding");
    }

    @Test
    void ineligibleResponsesAreLeftAsTheyAre() {
        List<Head> heads = List.of(
                new Head("Content-Type", "application/json", "Content-Length", "1023"),
                new Head("Content-Type", "application/json", "Content-Length", "0"),
                new Head("Content-Type", "image/png"),
                new Head(),
                new Head("Content-Type", "application/json", "Content-Encoding", "gzip"),
                new Head("Content-Type", "application/json", "Content-Encoding", "br"),
                new Head("Content-Type", "application/json", "Content-Range", "bytes 0-9/100"),
                new Head("Content-Type", "application/json", "Cache-Control", "private, No-Transform"));
        for (Head head : heads) {
            Map<String, String> before = new TreeMap<>(head.fields);
            assertThat(JSON.begin(Coding.GZIP, 200, head)).as("%s", before).isFalse();
            assertThat(head.fields).as("untouched").isEqualTo(before);
        }
        for (int status : new int[] {101, 204, 206, 304}) {
            Head head = new Head("Content-Type", "application/json");
            assertThat(JSON.begin(Coding.GZIP, status, head))
                    .as("status %d", status)
                    .isFalse();
            assertThat(head.fields).doesNotContainKey("Vary");
        }
        assertThat(JSON.begin(
                        Coding.GZIP, 200, new Head("Content-Type", "application/json", "Content-Encoding", "identity")))
                .isTrue();
        assertThat(JSON.begin(Coding.GZIP, 200, new Head("Content-Type", "application/json", "Content-Length", "1024")))
                .isTrue();
    }

    @Test
    void typeRangesMatchTheirSubtypes() {
        assertThat(TEXT.begin(Coding.GZIP, 200, new Head("Content-Type", "text/html;charset=utf-8")))
                .isTrue();
        assertThat(TEXT.begin(Coding.GZIP, 200, new Head("Content-Type", "Application/XML")))
                .isTrue();
        assertThat(TEXT.begin(Coding.GZIP, 200, new Head("Content-Type", "application/json")))
                .isFalse();
        assertThat(TEXT.begin(Coding.GZIP, 200, new Head("Content-Type", "text/")))
                .isFalse();
        assertThat(TEXT.begin(Coding.GZIP, 200, new Head("Content-Type", "text/plain", "Content-Length", "1")))
                .as("min-size 0 still needs a body")
                .isTrue();
    }

    @Test
    void theCodingIsTheHighestQValueAmongTheRoutesWithItsOrderBreakingTies() {
        Compression both = Compression.of(
                new FilterConfig.Compression(List.of("application/json"), 0, 1, List.of("zstd", "gzip"), 3));
        assertThat(both.wanted("HTTP/1.1", "GET", "gzip, deflate, br, zstd")).isEqualTo(Coding.ZSTD);
        assertThat(both.wanted("HTTP/1.1", "GET", "gzip")).isEqualTo(Coding.GZIP);
        assertThat(both.wanted("HTTP/1.1", "GET", "zstd;q=0.5, gzip")).isEqualTo(Coding.GZIP);
        assertThat(both.wanted("HTTP/1.1", "GET", "zstd;q=0, *")).isEqualTo(Coding.GZIP);
        assertThat(both.wanted("HTTP/1.1", "GET", "*;q=0.2")).isEqualTo(Coding.ZSTD);
        assertThat(both.wanted("HTTP/1.1", "GET", "br, identity")).isNull();
        Head head = new Head("Content-Type", "application/json");
        assertThat(both.begin(Coding.ZSTD, 200, head)).isTrue();
        assertThat(head.get("Content-Encoding")).isEqualTo("zstd");
        try (ResponseEncoder encoder = both.encoder(Coding.ZSTD)) {
            assertThat(encoder).isInstanceOf(ZstdEncoder.class);
        }
    }

    @Test
    void theRequestSideDecidesByMethodVersionAndAcceptEncoding() {
        assertThat(JSON.wanted("HTTP/1.1", "GET", "gzip, br")).isEqualTo(Coding.GZIP);
        assertThat(JSON.wanted("HTTP/2.0", "POST", "gzip")).isEqualTo(Coding.GZIP);
        assertThat(JSON.wanted("HTTP/1.1", "GET", "zstd"))
                .as("not offered by the route")
                .isNull();
        assertThat(JSON.wanted("HTTP/1.1", "HEAD", "gzip")).isNull();
        assertThat(JSON.wanted("HTTP/1.0", "GET", "gzip")).isNull();
        assertThat(JSON.wanted("HTTP/1.1", "GET", null)).isNull();
        assertThat(Compression.NONE.isOn()).isFalse();
        assertThat(Compression.NONE.wanted("HTTP/1.1", "GET", "gzip")).isNull();
        assertThat(Compression.NONE.begin(Coding.GZIP, 200, new Head("Content-Type", "application/json")))
                .isFalse();
    }
}
