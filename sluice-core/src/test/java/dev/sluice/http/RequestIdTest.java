package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RequestIdTest {

    @Test
    void aSaneClientIdIsKept() {
        assertThat(RequestId.reuseOrNext("abc-123")).isEqualTo("abc-123");
        assertThat(RequestId.reuseOrNext("f81d4fae-7dec-11d0-a765-00a0c91e6bf6"))
                .isEqualTo("f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
        String longest = "x".repeat(RequestId.MAX_LENGTH);
        assertThat(RequestId.reuseOrNext(longest)).isEqualTo(longest);
    }

    @Test
    void anInsaneClientIdIsReplacedByANewOne() {
        for (String insane : new String[] {
            null, "", "x".repeat(RequestId.MAX_LENGTH + 1), "with space", "line\nbreak", "tab\t", "caf\u00e9", "\u007f"
        }) {
            String id = RequestId.reuseOrNext(insane);
            assertThat(id).as("for %s", insane).isNotEqualTo(insane);
            assertThat(RequestId.isSane(id)).isTrue();
        }
    }

    @Test
    void newIdsShareTheProcessPrefixAndDiffer() {
        String first = RequestId.next();
        String second = RequestId.next();

        assertThat(first).matches("[0-9a-v]{8}-[0-9a-z]+");
        assertThat(second).isNotEqualTo(first);
        assertThat(second.substring(0, 9)).isEqualTo(first.substring(0, 9));
        assertThat(RequestId.isSane(first)).isTrue();
    }

    @Test
    void idsMadeConcurrentlyAreUnique() {
        Set<String> ids = ConcurrentHashMap.newKeySet();
        IntStream.range(0, 100_000).parallel().forEach(i -> ids.add(RequestId.next()));

        assertThat(ids).hasSize(100_000);
        Set<String> prefixes = new HashSet<>();
        ids.forEach(id -> prefixes.add(id.substring(0, 9)));
        assertThat(prefixes).hasSize(1);
    }

    @Test
    void theInternalErrorBodyCarriesTheIdAndNoMore() {
        String body = new String(ErrorBody.internalError("req-\"1\""), java.nio.charset.StandardCharsets.UTF_8);

        assertThat(body)
                .startsWith("{\"status\":500,\"error\":\"internal_error\",\"message\":\"")
                .endsWith(",\"request_id\":\"req-\\\"1\\\"\"}");
    }
}
