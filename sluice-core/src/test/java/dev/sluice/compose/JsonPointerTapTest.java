package dev.sluice.compose;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonPointerTapTest {

    private static JsonPointerTap tap(int maxValue, String... pointers) {
        return new JsonPointerTap("p:", List.of(pointers), maxValue);
    }

    /** Feeds one byte at a time: every split of the input is a split the tap must take. */
    private static void feedByBytes(JsonPointerTap tap, String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            tap.feed(bytes, i, 1);
        }
    }

    @Test
    void findsScalarsAndArraysOfScalarsAsTheyStreamPast() {
        JsonPointerTap tap = tap(1024, "/id", "/reviewIds", "/offer/name", "/list/1", "/a~1b");
        feedByBytes(
                tap,
                "{\"skip\": {\"id\": 9, \"x\": [1, {\"y\": 2}]}, \"id\": 42, \"reviewIds\": [ 3, \"a b\", true ],"
                        + " \"offer\": {\"name\": \"caf\\u00e9 \\\"x\\\"\"}, \"list\": [0, -1.5e3], \"a/b\": \"s\"");
        assertThat(tap.resolved()).isEqualTo(5); // before the body ends
        assertThat(tap.value(0)).isEqualTo("42");
        assertThat(tap.value(1)).isEqualTo("3,a b,true");
        assertThat(tap.value(2)).isEqualTo("café \"x\"");
        assertThat(tap.value(3)).isEqualTo("-1.5e3");
        assertThat(tap.value(4)).isEqualTo("s");
    }

    @Test
    void aValueIsResolvedTheMomentItEndsNotWhenTheBodyDoes() {
        JsonPointerTap tap = tap(1024, "/ids");
        feedByBytes(tap, "{\"ids\": [1, 2");
        assertThat(tap.isResolved(0)).isFalse();
        feedByBytes(tap, "]");
        assertThat(tap.value(0)).isEqualTo("1,2");
    }

    @Test
    void missingNullObjectNestedAndTooLongValuesAreProblems() {
        JsonPointerTap tap = tap(8, "/missing", "/nil", "/obj", "/nested", "/long", "/longs", "/nulls");
        feedByBytes(
                tap,
                "{\"nil\": null, \"obj\": {\"a\": 1}, \"nested\": [1, [2]], \"long\": \"123456789\","
                        + " \"longs\": [1234, 5678, 9], \"nulls\": [1, null]}");
        assertThat(tap.resolved()).isEqualTo(6);
        tap.finish();
        assertThat(tap.problem(0)).isEqualTo("no value at 'p:/missing'");
        assertThat(tap.problem(1)).contains("'p:/nil' is null");
        assertThat(tap.problem(2)).contains("'p:/obj' is an object");
        assertThat(tap.problem(3)).contains("'p:/nested' holds an array or object");
        assertThat(tap.problem(4)).contains("longer than max-value (8 bytes)");
        assertThat(tap.problem(5)).contains("longer than max-value (8 bytes)");
        assertThat(tap.problem(6)).contains("'p:/nulls' holds null");
        for (int k = 0; k < 7; k++) {
            assertThat(tap.value(k)).isNull();
        }
    }

    @Test
    void invalidJsonStopsTheScanAndLeavesWhatItDidNotFindMissing() {
        JsonPointerTap tap = tap(1024, "/a", "/b");
        feedByBytes(tap, "{\"a\": 1 } } \"b\": 2}");
        tap.finish();
        assertThat(tap.value(0)).isEqualTo("1");
        assertThat(tap.problem(1)).isEqualTo("no value at 'p:/b'");
    }

    @Test
    void theWholeDocumentAndAnEmptyArray() {
        JsonPointerTap whole = tap(1024, "");
        feedByBytes(whole, " 17 ");
        assertThat(whole.value(0)).isEqualTo("17");
        JsonPointerTap topNumber = tap(1024, "");
        feedByBytes(topNumber, "17");
        topNumber.finish();
        assertThat(topNumber.value(0)).isEqualTo("17");
        JsonPointerTap empty = tap(1024, "/ids");
        feedByBytes(empty, "{\"ids\": []}");
        assertThat(empty.value(0)).isEmpty();
    }
}
