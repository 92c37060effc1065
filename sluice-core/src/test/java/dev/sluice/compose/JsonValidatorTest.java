package dev.sluice.compose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class JsonValidatorTest {

    static final List<String> VALID = List.of(
            "{}",
            "[]",
            "0",
            "-0",
            "1",
            "-1",
            "123",
            "1.5",
            "-0.0e0",
            "1e10",
            "1E+2",
            "2.5e-3",
            "0.25E-00",
            "true",
            "false",
            "null",
            "\"\"",
            "\"abc\"",
            " \t\r\n{}\n ",
            " 42 ",
            "\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\uD83D\\uDE00 \\uABCD\"",
            "\"caf\u00e9 \u65e5\u672c \uD83D\uDE00\"",
            "\"\u007f\"",
            "{\"a\":1}",
            "{\"a\" : [1, 2.0, -3e2, true, false, null, \"x\", {}, []]}",
            "{\"a\":{\"b\":{\"c\":[[[]]]}},\"d\":\"e\"}",
            "[[],[{}],{\"\":\"\"}]",
            "{\"product\":{\"id\":\"p1\",\"price\":9.99},\"_meta\":{\"parts\":{},\"failed\":[],\"latency_ms\":1.000}}",
            "[1,\n2 ,\t3]",
            "[0,1,-1,0.5]",
            "{\"\\u0000\":0}");

    static final List<String> INVALID = List.of(
            "",
            "   ",
            "{",
            "[",
            "}",
            "]",
            "{]",
            "[}",
            "[1,]",
            "[,1]",
            "{\"a\":1,}",
            "{,}",
            "{\"a\"}",
            "{\"a\":}",
            "{a:1}",
            "{'a':1}",
            "{\"a\" 1}",
            "{1:2}",
            "[1 2]",
            "[1:2]",
            "{\"a\":1 \"b\":2}",
            "01",
            "-",
            "-a",
            "+1",
            ".5",
            "1.",
            "1.e2",
            "1e",
            "1e+",
            "0x10",
            "1 2",
            "--1",
            "-01",
            "1.5.5",
            "tru",
            "truex",
            "True",
            "nul",
            "nulll",
            "fals",
            "NaN",
            "Infinity",
            "[true false]",
            "\"abc",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\u12G4\"",
            "\"tab\there\"",
            "\"new\nline\"",
            "\"\u0001\"",
            "{} {}",
            "[] x",
            "\"a\" \"b\"",
            "{}}",
            "[]]",
            "[1]]",
            "/* c */ 1",
            "[1] // c",
            "\u00ef\u00bb\u00bf{}",
            "[\"a\",]",
            "{\"a\":[}",
            "{\"a\":{]}");

    static Stream<String> valid() {
        return VALID.stream();
    }

    static Stream<String> invalid() {
        return INVALID.stream();
    }

    static boolean verdict(byte[] json) {
        JsonValidator v = new JsonValidator();
        v.feed(json, 0, json.length);
        return v.finish();
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @MethodSource("valid")
    void acceptsValidJson(String json) {
        JsonValidator v = new JsonValidator();
        v.feed(utf8(json), 0, utf8(json).length);
        assertThat(v.failed()).isFalse();
        assertThat(v.finish()).as(json).isTrue();
        assertThat(v.error()).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("invalid")
    void rejectsInvalidJson(String json) {
        JsonValidator v = new JsonValidator();
        v.feed(utf8(json), 0, utf8(json).length);
        assertThat(v.finish()).as(json).isFalse();
        assertThat(v.failed()).isTrue();
        assertThat(v.error()).isNotEmpty();
    }

    @ParameterizedTest
    @MethodSource({"valid", "invalid"})
    void everySplitGivesTheSameVerdict(String json) {
        byte[] bytes = utf8(json);
        boolean whole = verdict(bytes);
        for (int split = 0; split <= bytes.length; split++) {
            JsonValidator v = new JsonValidator();
            v.feed(bytes, 0, split);
            v.feed(bytes, split, bytes.length - split);
            assertThat(v.finish()).as("%s split at %d", json, split).isEqualTo(whole);
        }
        JsonValidator oneByOne = new JsonValidator();
        for (int i = 0; i < bytes.length; i++) {
            oneByOne.feed(bytes, i, 1);
        }
        assertThat(oneByOne.finish()).as("%s byte by byte", json).isEqualTo(whole);
    }

    /** Inputs for the fast paths of feed(byte[]): runs that end or break at every place in a word. */
    static Stream<String> fastPathEdges() {
        List<String> out = new java.util.ArrayList<>();
        for (int n = 0; n < 18; n++) {
            String x = "x".repeat(n);
            out.add("[\"" + x + "\",\"" + x + "\\\"\\u00e9" + x + "\"]");
            out.add("{\"" + x + "\":\"" + x + "\u0001y\"}"); // a control byte: refused
            out.add("{\"" + x + "\":\"" + x + "\\u00g9\"}"); // a bad hex digit
            out.add("{\"" + x + "\":\"" + x + "\\q\"}"); // a bad escape
            out.add("{\"" + x + "\":\"" + x); // cut inside the string
            out.add("[" + "1".repeat(n + 1) + ",0,-0,0.5," + "9".repeat(n + 1) + "e+1" + ",1E2]");
            out.add("[0" + "1".repeat(n) + "]"); // a leading 0 before digits: refused when n > 0
            out.add("[1" + "2".repeat(n) + ".]");
            out.add("[1" + "2".repeat(n) + "x]");
            out.add("[" + "[".repeat(n + 14) + "]".repeat(n + 14) + "]"); // the stack grows on the way
            out.add(" ".repeat(n) + "{ \"a\" :\t[ true ,false, null ] ,\"b\":{}}" + "\n".repeat(n));
        }
        out.addAll(List.of("\"a\",\"b\"", "\"a\":\"b\"", "\"a\":1", "[\"a\",\"b\"]", "{\"a\":\"b\",\"c\":1,\"d\":0}"));
        out.addAll(List.of("[tru]", "nul", "[1,]", "{\"a\"1}", "{\"a\":1,}", "{]", "[}", "1 2", "{\"a\":1}}"));
        out.add("[".repeat(1001) + "]".repeat(1001));
        return out.stream();
    }

    /** The reference: a direct buffer is checked a byte at a time by step(), none of the fast paths. */
    static String stepByStep(byte[] json) {
        JsonValidator v = new JsonValidator();
        v.feed(ByteBuffer.allocateDirect(json.length).put(json).clear());
        return v.finish() ? "ok" : v.error();
    }

    @ParameterizedTest
    @MethodSource({"valid", "invalid", "fastPathEdges"})
    void theFastPathsSayWhatStepByStepSaysAtEverySplit(String json) {
        byte[] bytes = utf8(json);
        String want = stepByStep(bytes);
        for (int split = 0; split <= bytes.length; split++) {
            int thirds = bytes.length < 300 ? 9 : 0; // a third chunk too, but not for the deepest nesting
            for (int second = split; second <= Math.min(bytes.length, split + thirds); second++) {
                JsonValidator v = new JsonValidator();
                v.feed(bytes, 0, split);
                v.feed(bytes, split, second - split);
                v.feed(bytes, second, bytes.length - second);
                assertThat(v.finish() ? "ok" : v.error())
                        .as("%s split at %d and %d", json, split, second)
                        .isEqualTo(want);
            }
        }
    }

    @Test
    void errorsNameTheByteAndItsOffset() {
        JsonValidator v = new JsonValidator();
        byte[] json = utf8("{\"a\": [1, 2}");
        v.feed(json, 0, json.length);
        assertThat(v.failed()).isTrue();
        assertThat(v.error()).isEqualTo("unexpected '}' at byte 11 (expected: ',' or ']')");

        JsonValidator split = new JsonValidator();
        split.feed(json, 0, 5);
        assertThat(split.failed()).isFalse();
        split.feed(json, 5, json.length - 5);
        assertThat(split.error()).isEqualTo(v.error());
    }

    @Test
    void endOfInputInsideAValueIsReportedByFinish() {
        JsonValidator v = new JsonValidator();
        v.feed(utf8("{\"a\":"), 0, 5);
        assertThat(v.failed()).isFalse();
        assertThat(v.finish()).isFalse();
        assertThat(v.error()).isEqualTo("unexpected end of input at byte 5");
        assertThat(v.finish()).isFalse();

        JsonValidator empty = new JsonValidator();
        assertThat(empty.finish()).isFalse();
        assertThat(empty.error()).isEqualTo("empty input (expected: one JSON value)");
    }

    @Test
    void controlCharactersInStringsAreErrors() {
        JsonValidator v = new JsonValidator();
        byte[] json = {'"', 'a', 0x0a, '"'};
        v.feed(json, 0, json.length);
        assertThat(v.error()).isEqualTo("control character 0x0a in a string at byte 2");
    }

    @Test
    void nestingIsCapped() {
        int limit = JsonValidator.MAX_DEPTH;
        assertThat(verdict(utf8("[".repeat(limit) + "]".repeat(limit)))).isTrue();
        JsonValidator v = new JsonValidator();
        byte[] deep = utf8("[".repeat(limit + 1) + "]".repeat(limit + 1));
        v.feed(deep, 0, deep.length);
        assertThat(v.failed()).isTrue();
        assertThat(v.error()).isEqualTo("nesting deeper than 1000 at byte 1000");
        assertThat(verdict(utf8("{\"a\":".repeat(limit + 1) + "1" + "}".repeat(limit + 1))))
                .isFalse();
    }

    @Test
    void byteBuffersAreReadWithoutMovingTheirPosition() {
        byte[] json = utf8("xx[1, {\"b\": \"c\"}]yy");
        for (ByteBuffer buffer : List.of(
                ByteBuffer.wrap(json),
                ByteBuffer.allocateDirect(json.length).put(json).clear())) {
            buffer.position(2).limit(json.length - 2);
            JsonValidator v = new JsonValidator();
            v.feed(buffer);
            assertThat(buffer.position()).isEqualTo(2);
            assertThat(buffer.limit()).isEqualTo(json.length - 2);
            assertThat(v.finish()).as(buffer.toString()).isTrue();
        }
        ByteBuffer slice = ByteBuffer.wrap(json, 1, json.length - 1).slice(); // arrayOffset 1
        slice.position(1).limit(slice.limit() - 2);
        JsonValidator v = new JsonValidator();
        v.feed(slice);
        assertThat(v.finish()).isTrue();
    }

    @Test
    void aLargeRandomDocumentFedInRandomChunksIsValid() {
        Random random = new Random(42);
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < 300; i++) {
            sb.append(i == 0 ? "" : ",");
            generate(random, sb, 0);
        }
        sb.append(']');
        assertThat(sb.length()).isGreaterThan(10_000);
        byte[] json = utf8(sb.toString());
        for (int round = 0; round < 5; round++) {
            JsonValidator v = new JsonValidator();
            int pos = 0;
            while (pos < json.length) {
                int n = Math.min(json.length - pos, 1 + random.nextInt(64));
                v.feed(json, pos, n);
                pos += n;
            }
            assertThat(v.finish()).as(v.error()).isTrue();
        }
        // and one corrupted byte somewhere in the middle of the structure makes it invalid
        byte[] broken = json.clone();
        int comma = sb.indexOf(",", sb.length() / 2);
        broken[comma] = ':';
        assertThat(verdict(broken)).isFalse();
    }

    private static void generate(Random r, StringBuilder sb, int depth) {
        int kind = depth > 6 ? 2 + r.nextInt(4) : r.nextInt(6);
        switch (kind) {
            case 0 -> {
                sb.append('{');
                int n = 1 + r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    sb.append(i == 0 ? "" : ",").append("\"k").append(i).append("\\n\":");
                    generate(r, sb, depth + 1);
                }
                sb.append('}');
            }
            case 1 -> {
                sb.append("[ ");
                int n = 1 + r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    sb.append(i == 0 ? "" : " , ");
                    generate(r, sb, depth + 1);
                }
                sb.append(']');
            }
            case 2 -> sb.append(r.nextInt() / 7.0);
            case 3 -> sb.append("\"x\u00e9\\u0041\\\"").append(r.nextLong()).append('"');
            case 4 -> sb.append(r.nextBoolean() ? "true" : "null");
            default -> sb.append(r.nextInt(1000) - 500);
        }
    }

    @Test
    void argumentsAreChecked() {
        JsonValidator v = new JsonValidator();
        assertThatThrownBy(() -> v.feed(null, 0, 0)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> v.feed(new byte[2], 1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> v.feed((ByteBuffer) null)).isInstanceOf(NullPointerException.class);
    }
}
