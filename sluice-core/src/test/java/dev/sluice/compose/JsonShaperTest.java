package dev.sluice.compose;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.config.PartConfig.Shaping;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JsonShaperTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static Shaping select(String... paths) {
        return new Shaping(List.of(paths), List.of(), Map.of(), Optional.empty(), 4096);
    }

    static Shaping exclude(String... paths) {
        return new Shaping(List.of(), List.of(paths), Map.of(), Optional.empty(), 4096);
    }

    static Shaping take(String pointer) {
        return new Shaping(List.of(), List.of(), Map.of(), Optional.of(pointer), 4096);
    }

    /** Shapes {@code json} fed in chunks of random sizes into rooms of random sizes. */
    static String shape(Shaping shaping, String json, Random random) {
        JsonShaper shaper = new JsonShaper(shaping);
        byte[] in = json.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int pos = 0;
        while (pos < in.length || shaper.hasPending()) {
            int chunk = Math.min(in.length - pos, 1 + random.nextInt(random.nextBoolean() ? 3 : 64));
            int end = pos + chunk;
            while (pos < end || shaper.hasPending()) {
                byte[] room = new byte[1 + random.nextInt(random.nextBoolean() ? 2 : 50)];
                int used = shaper.shape(in, pos, end - pos, room, 0, room.length);
                pos += used;
                out.write(room, 0, shaper.produced());
            }
        }
        if (!shaper.finish()) {
            return "FAILED " + shaper.error();
        }
        if (shaper.absent()) {
            return "ABSENT " + shaper.error();
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    static String shape(Shaping shaping, String json) {
        return shape(shaping, json, new Random(json.hashCode()));
    }

    @Test
    void selectKeepsNamedMembersAndPathsThroughArrays() {
        String json =
                "{\"name\":\"lamp\", \"price\": 9.5, \"stock\":3, \"images\":[{\"url\":\"a\",\"w\":1},{\"w\":2,\"url\":\"b\"}]}";
        assertThat(shape(select("name", "price", "images[*].url"), json))
                .isEqualTo("{\"name\":\"lamp\",\"price\":9.5,\"images\":[{\"url\":\"a\"},{\"url\":\"b\"}]}");
    }

    @Test
    void selectAppliesToEachElementOfATopLevelArray() {
        assertThat(shape(select("id"), "[{\"id\":1,\"x\":2},{\"x\":3},{\"id\":4}]"))
                .isEqualTo("[{\"id\":1},{},{\"id\":4}]");
    }

    @Test
    void excludeDropsMembersAndTheirCommas() {
        assertThat(shape(
                        exclude("a", "c.d"),
                        "{\"a\":[1,{\"x\":2}],\"b\":true,\"c\":{\"d\":null,\"e\":\"\\\"}\"},\"a2\":1}"))
                .isEqualTo("{\"b\":true,\"c\":{\"e\":\"\\\"}\"},\"a2\":1}");
    }

    @Test
    void renameWritesTheNewNameAndDropsAMemberAlreadyCalledSo() {
        Shaping s = new Shaping(List.of(), List.of(), Map.of("price", "cost", "o.p", "q"), Optional.empty(), 4096);
        assertThat(shape(s, "{\"cost\":0,\"price\":1,\"o\":{\"p\":2,\"r\":3}}"))
                .isEqualTo("{\"cost\":1,\"o\":{\"q\":2,\"r\":3}}");
    }

    @Test
    void takeRelaysOnlyTheValueAtThePointer() {
        String json = "{\"meta\":{\"n\":2},\"data\":{\"items\":[{\"id\":1},{\"id\":2}],\"a/b\":[7,8,9]}}";
        assertThat(shape(take("/data/items"), json)).isEqualTo("[{\"id\":1},{\"id\":2}]");
        assertThat(shape(take("/data/a~1b/1"), json)).isEqualTo("8");
        assertThat(shape(take("/data/items/1/id"), json)).isEqualTo("2");
        assertThat(shape(take(""), " [1] ")).isEqualTo("[1]");
        assertThat(shape(take("/data/items/01"), json)).isEqualTo("ABSENT take: no value at '/data/items/01'");
        assertThat(shape(take("/nothing"), json)).isEqualTo("ABSENT take: no value at '/nothing'");
        assertThat(shape(take("/meta/n/x"), json)).startsWith("ABSENT");
    }

    @Test
    void takeThenSelect() {
        Shaping s = new Shaping(List.of("id"), List.of(), Map.of("id", "key"), Optional.of("/data"), 4096);
        assertThat(shape(s, "{\"data\":[{\"id\":1,\"x\":2},{\"id\":\"\\u00e9\"}],\"id\":0}"))
                .isEqualTo("[{\"key\":1},{\"key\":\"\\u00e9\"}]");
    }

    @Test
    void invalidJsonFailsAsTheValidatorSaysIt() {
        for (String bad : List.of("", "{", "{\"a\":}", "[1,]", "{\"a\":1}x", "\"\\x\"", "[01]")) {
            JsonValidator v = new JsonValidator();
            byte[] b = bad.getBytes(StandardCharsets.UTF_8);
            v.feed(b, 0, b.length);
            v.finish();
            assertThat(shape(select("a"), bad)).as(bad).isEqualTo("FAILED " + v.error());
        }
    }

    @Test
    void aMemberNameLongerThanTheBoundFailsThePart() {
        Shaping s = new Shaping(List.of("a"), List.of(), Map.of(), Optional.empty(), 8);
        assertThat(shape(s, "{\"a\":1,\"bbbbbbbb\":2}")).isEqualTo("{\"a\":1}");
        assertThat(shape(s, "{\"a\":1,\"bbbbbbbbb\":2}")).startsWith("FAILED a member name longer than 8 bytes");
        assertThat(shape(s, "{\"a\":{\"bbbbbbbbbbbbbbbbbbbb\":2}}"))
                .isEqualTo("{\"a\":{\"bbbbbbbbbbbbbbbbbbbb\":2}}"); // kept whole: streamed
    }

    @Test
    void unicodeAndEscapesPassUnchanged() {
        String json = "{\"caf\u00e9\":\"\u65e5\u672c \uD83D\uDE00 \\uD83D\\uDE00 \\\\\\\"\",\"x\\\"y\":[\"\\n\"]}";
        assertThat(shape(select("caf\u00e9", "x\"y"), json)).isEqualTo(json);
        assertThat(shape(exclude("caf\u00e9"), json)).isEqualTo("{\"x\\\"y\":[\"\\n\"]}");
    }

    @Test
    void numbersAndLiteralsEverywhere() {
        String json = "[0,-0,1.5e+3,-2E-2,true,false,null,{\"a\":-1.0e5,\"b\":[null,true]},12]";
        assertThat(shape(select("a"), json)).isEqualTo("[0,-0,1.5e+3,-2E-2,true,false,null,{\"a\":-1.0e5},12]");
        assertThat(shape(select("a"), " 42 ")).isEqualTo("42");
        assertThat(shape(take("/7/b/1"), json)).isEqualTo("true");
    }

    @Test
    void deepNesting() {
        String json = "[".repeat(900) + "{\"a\":1,\"b\":2}" + "]".repeat(900);
        assertThat(shape(select("a"), json)).isEqualTo("[".repeat(900) + "{\"a\":1}" + "]".repeat(900));
        assertThat(shape(select("a"), "[".repeat(1001) + "]".repeat(1001))).startsWith("FAILED nesting deeper than");
    }

    @Test
    void equalsATreeFilterOnRandomDocumentsInRandomChunkings() throws Exception {
        Random random = new Random(30);
        List<Shaping> shapings = List.of(
                select("a", "b.c", "d[*].a"),
                select("b"),
                exclude("a", "b.c"),
                exclude("d.a"),
                new Shaping(List.of("a", "b"), List.of(), Map.of("a", "z", "b.c", "y"), Optional.empty(), 4096),
                new Shaping(List.of(), List.of("c"), Map.of("b", "a"), Optional.empty(), 4096),
                new Shaping(List.of("a"), List.of(), Map.of(), Optional.of("/b"), 4096),
                take("/d/0"),
                take("/b/c"));
        for (int n = 0; n < 3000; n++) {
            JsonNode doc = randomValue(random, 0);
            String json = pretty(doc, random);
            Shaping s = shapings.get(n % shapings.size());
            String got = shape(s, json, random);
            JsonNode want = tree(s, doc);
            if (want == null) {
                assertThat(got).as(json).startsWith("ABSENT");
            } else {
                assertThat(got).as(s + " on " + json).doesNotStartWith("FAILED").doesNotStartWith("ABSENT");
                assertThat(JSON.readTree(got)).as(s + " on " + json).isEqualTo(want);
            }
        }
    }

    @Test
    void mangledJsonNeverThrowsAndFailsExactlyWhenTheValidatorDoes() throws Exception {
        Random random = new Random(29);
        byte[] alphabet = "{}[]\":,\\ \n0123456789-+.eEtrufalsn\u00e9abcdz".getBytes(StandardCharsets.UTF_8);
        for (int n = 0; n < 5000; n++) {
            byte[] json = pretty(randomValue(random, 0), random).getBytes(StandardCharsets.UTF_8);
            int edits = 1 + random.nextInt(3);
            for (int e = 0; e < edits && json.length > 0; e++) {
                int at = random.nextInt(json.length);
                switch (random.nextInt(3)) {
                    case 0 -> json[at] = alphabet[random.nextInt(alphabet.length)];
                    case 1 -> json = java.util.Arrays.copyOf(json, at); // cut
                    default -> {
                        byte[] longer = new byte[json.length + 1];
                        System.arraycopy(json, 0, longer, 0, at);
                        longer[at] = alphabet[random.nextInt(alphabet.length)];
                        System.arraycopy(json, at, longer, at + 1, json.length - at);
                        json = longer;
                    }
                }
            }
            String text = new String(json, StandardCharsets.ISO_8859_1);
            JsonValidator v = new JsonValidator();
            v.feed(json, 0, json.length);
            boolean valid = v.finish();
            Shaping s = List.of(select("a", "b.c"), exclude("d"), take("/b")).get(n % 3);
            JsonShaper shaper = new JsonShaper(s);
            byte[] out = new byte[json.length * 4 + 64];
            int pos = 0;
            int written = 0;
            while (pos < json.length || shaper.hasPending()) {
                int chunk = Math.min(json.length - pos, 1 + random.nextInt(7));
                pos += shaper.shape(
                        json, pos, chunk, out, written, Math.min(out.length - written, 1 + random.nextInt(9)));
                written += shaper.produced();
            }
            assertThat(shaper.finish()).as(text).isEqualTo(valid);
            if (!valid) {
                assertThat(shaper.error()).as(text).isEqualTo(v.error());
            }
        }
    }

    // ---- a tree filter, for comparison ----

    static JsonNode tree(Shaping s, JsonNode doc) {
        JsonNode v = doc;
        if (s.take().isPresent()) {
            v = doc.at(s.take().get());
            if (v.isMissingNode()) {
                return null;
            }
        }
        List<List<String>> select = new ArrayList<>();
        s.select().forEach(p -> select.add(Shaping.segments(p)));
        List<List<String>> exclude = new ArrayList<>();
        s.exclude().forEach(p -> exclude.add(Shaping.segments(p)));
        Map<List<String>, String> rename = new LinkedHashMap<>();
        s.rename().forEach((k, n) -> rename.put(Shaping.segments(k), n));
        return filter(v, !select.isEmpty(), select, exclude, rename);
    }

    static JsonNode filter(
            JsonNode v,
            boolean selecting,
            List<List<String>> select,
            List<List<String>> exclude,
            Map<List<String>, String> rename) {
        if (!selecting && exclude.isEmpty() && rename.isEmpty()) {
            return v;
        }
        if (v.isArray()) {
            ArrayNode a = JsonNodeFactory.instance.arrayNode();
            v.forEach(e -> a.add(filter(e, selecting, select, exclude, rename)));
            return a;
        }
        if (!v.isObject()) {
            return v;
        }
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String k = e.getKey();
            boolean renamedHere = rename.containsKey(List.of(k));
            if (!renamedHere
                    && rename.entrySet().stream()
                            .anyMatch(
                                    r -> r.getKey().size() == 1 && r.getValue().equals(k))) {
                continue;
            }
            if (exclude.contains(List.of(k))) {
                continue;
            }
            boolean childSelecting = false;
            List<List<String>> childSelect = new ArrayList<>();
            if (selecting) {
                List<List<String>> under = under(select, k);
                if (under.isEmpty() && !select.stream().anyMatch(p -> p.get(0).equals(k))) {
                    continue;
                }
                childSelecting = !under.contains(List.of());
                if (childSelecting) {
                    childSelect = under;
                }
            }
            List<List<String>> childExclude = under(exclude, k);
            Map<List<String>, String> childRename = new LinkedHashMap<>();
            rename.forEach((p, n) -> {
                if (p.size() > 1 && p.get(0).equals(k)) {
                    childRename.put(p.subList(1, p.size()), n);
                }
            });
            String name = renamedHere ? rename.get(List.of(k)) : k;
            o.set(name, filter(e.getValue(), childSelecting, childSelect, childExclude, childRename));
        }
        return o;
    }

    static List<List<String>> under(List<List<String>> paths, String k) {
        List<List<String>> out = new ArrayList<>();
        for (List<String> p : paths) {
            if (p.get(0).equals(k)) {
                out.add(p.subList(1, p.size()));
            }
        }
        return out;
    }

    static JsonNode randomValue(Random r, int depth) {
        int kind = depth > 4 ? 3 + r.nextInt(4) : r.nextInt(7);
        JsonNodeFactory f = JsonNodeFactory.instance;
        switch (kind) {
            case 0, 1 -> {
                ObjectNode o = f.objectNode();
                int n = r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    o.set(randomKey(r), randomValue(r, depth + 1));
                }
                return o;
            }
            case 2 -> {
                ArrayNode a = f.arrayNode();
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    a.add(randomValue(r, depth + 1));
                }
                return a;
            }
            case 3 -> {
                return f.textNode(List.of("", "x", "caf\u00e9", "q\"\\/\n\t", "\uD83D\uDE00 {}[],:")
                        .get(r.nextInt(5)));
            }
            case 4 -> {
                return r.nextBoolean() ? f.numberNode(r.nextInt(2000) - 1000) : f.numberNode(r.nextDouble() * 1e6);
            }
            case 5 -> {
                return f.booleanNode(r.nextBoolean());
            }
            default -> {
                return f.nullNode();
            }
        }
    }

    static String randomKey(Random r) {
        return List.of("a", "b", "c", "d", "e", "z", "y", "ab", "\u00e9").get(r.nextInt(9));
    }

    static String pretty(JsonNode doc, Random r) throws Exception {
        return r.nextBoolean()
                ? JSON.writerWithDefaultPrettyPrinter().writeValueAsString(doc)
                : JSON.writeValueAsString(doc);
    }

    @Test
    void plainEndFindsTheFirstQuoteBackslashOrControlByteAtEveryAlignment() {
        byte[] stops = {'"', '\\', 0x00, 0x1f, '\n'};
        for (int from = 0; from < 8; from++) {
            for (int at = from; at < from + 20; at++) {
                for (byte stop : stops) {
                    byte[] a = new byte[from + 24];
                    for (int k = 0; k < a.length; k++) {
                        a[k] = (byte) (k % 3 == 0 ? 0xc3 : k % 3 == 1 ? 0x20 : 0x7f); // UTF-8, space, DEL: plain
                    }
                    a[at] = stop;
                    if (at + 1 < a.length) {
                        a[at + 1] = '"'; // a later stop does not hide the first
                    }
                    assertThat(JsonValidator.plainEnd(a, from, a.length))
                            .as("from %d, %s at %d", from, stop, at)
                            .isEqualTo(at);
                    assertThat(JsonValidator.plainEnd(a, from, at)).isEqualTo(at); // the end stops a run
                }
            }
        }
    }

    @Test
    void stringsAndEscapesSplitAtEveryByteAndEveryAlignment() {
        String value = "abcdefgh\\\\ijk\\\"lmnopqrstuvw\\u00e9xyz0123456789\\n\\/é€𝄞 0123456789abcdefghij\\\\";
        String json = "{\"drop\":\"" + value + "\",\"k" + value + "\":\"" + value + "\",\"keep\":[\"" + value + "\"]}";
        String expected = "{\"keep\":[\"" + value + "\"]}";
        for (int pad = 0; pad < 8; pad++) {
            String padded = " ".repeat(pad) + json;
            byte[] in = padded.getBytes(StandardCharsets.UTF_8);
            for (int cut = 0; cut <= in.length; cut++) {
                JsonShaper shaper = new JsonShaper(select("keep"));
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                byte[] room = new byte[in.length + 64];
                int used = shaper.shape(in, 0, cut, room, 0, room.length);
                out.write(room, 0, shaper.produced());
                used += shaper.shape(in, used, in.length - used, room, 0, room.length);
                out.write(room, 0, shaper.produced());
                assertThat(used).isEqualTo(in.length);
                assertThat(shaper.finish())
                        .as("pad %d, cut %d: %s", pad, cut, shaper.error())
                        .isTrue();
                assertThat(out.toString(StandardCharsets.UTF_8))
                        .as("pad %d, cut %d", pad, cut)
                        .isEqualTo(expected);
            }
        }
    }

    /** Shapes {@code in} fed in the chunks that start at {@code cuts}, into rooms of {@code room} bytes. */
    static String shapeCut(Shaping shaping, byte[] in, int room, int... cuts) {
        JsonShaper shaper = new JsonShaper(shaping);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[room];
        int pos = 0;
        for (int c = 0; c <= cuts.length; c++) {
            int end = c < cuts.length ? cuts[c] : in.length;
            while (pos < end || shaper.hasPending()) {
                pos += shaper.shape(in, pos, end - pos, buffer, 0, room);
                out.write(buffer, 0, shaper.produced());
            }
        }
        if (!shaper.finish()) {
            return "FAILED " + shaper.error();
        }
        return shaper.absent() ? "ABSENT" : out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theFastPathsGiveTheSameOutputAndErrorsAtEverySplitAndRoom() {
        // runs that end at every place in a word: member names decided where they lie or in the key
        // buffer, values taken whole or read by the validator, numbers cut anywhere
        List<String> docs = new ArrayList<>();
        for (int n = 0; n < 12; n++) {
            String x = "x".repeat(n);
            String digits = "1234567890123".substring(0, n + 1);
            docs.add("{\"a" + x + "\":\"" + x + "\",\"a\":" + digits + ",\"b\" : {\"c\":\"" + x
                    + "\\\"\\u00e9\",\"d\":[" + digits + ",0,-1.5e+3,true,\"" + x + "\"]},\"c" + x
                    + "\\\"\":[{\"a\":" + digits + "}],\"d\":{\"a\":null,\"x\":[" + digits + "]}}");
            docs.add("{\"a\":\"" + x + "\u0001\"}"); // a control byte in a kept value
            docs.add("{\"z\":\"" + x + "\u0001\"}"); // in a dropped value
            docs.add("{\"a" + x + "\u0001\":1}"); // in a member name
            docs.add("{\"a\":0" + digits + "}"); // digits after a leading 0
            docs.add("{\"a\":" + digits + "x}");
            docs.add("{\"b\":{\"c\":" + digits + "." + "}}");
            docs.add("[" + digits + "," + digits + " ,{\"a\":\"" + x + "\"} ,\"" + x + "\"]");
            docs.add("{\"a\":1,\"" + "k".repeat(14 + n) + "\":2}"); // past max-key-bytes 16 when n > 2
            docs.add(" {\"a\"" + " ".repeat(n) + ":" + " ".repeat(n) + digits + " ".repeat(n) + "}" + " ".repeat(n));
        }
        docs.add("[".repeat(40) + "{\"a\":1,\"z\":2}" + "]".repeat(40));
        docs.add("{\"a\":1}x");
        docs.add("{\"a\":1,}");
        docs.add("{\"a\" 1}");
        List<Shaping> shapings = List.of(
                new Shaping(List.of("a", "b.c", "c\"", "d.x"), List.of(), Map.of(), Optional.empty(), 16),
                new Shaping(List.of(), List.of("b.d", "a"), Map.of("d", "e"), Optional.empty(), 16),
                new Shaping(List.of(), List.of(), Map.of(), Optional.of("/b/d/0"), 16),
                new Shaping(List.of(), List.of(), Map.of(), Optional.empty(), 16));
        for (String doc : docs) {
            byte[] in = doc.getBytes(StandardCharsets.UTF_8);
            JsonValidator v = new JsonValidator();
            v.feed(ByteBuffer.allocateDirect(in.length).put(in).clear()); // step by step, no fast path
            boolean valid = v.finish();
            for (Shaping s : shapings) {
                String whole = shapeCut(s, in, in.length + 64);
                if (!valid) {
                    assertThat(whole).as("%s: %s", s, doc).isEqualTo("FAILED " + v.error());
                } else if (!whole.startsWith("FAILED a member name")) {
                    assertThat(whole).as("%s: %s", s, doc).doesNotStartWith("FAILED");
                }
                for (int cut = 0; cut <= in.length; cut++) {
                    for (int second = cut; second <= Math.min(in.length, cut + 3); second++) {
                        assertThat(shapeCut(s, in, in.length + 64, cut, second))
                                .as("%s: %s cut at %d and %d", s, doc, cut, second)
                                .isEqualTo(whole);
                    }
                }
                for (int room = 1; room < 12; room++) {
                    assertThat(shapeCut(s, in, room))
                            .as("%s: %s room %d", s, doc, room)
                            .isEqualTo(whole);
                }
            }
        }
    }

    @Test
    void aControlByteOrABadEscapeInALongStringFailsAtItsByteWhateverTheChunking() {
        for (int at = 1; at < 20; at++) {
            String body = "x".repeat(at) + "\u0001" + "y".repeat(20);
            String json = "{\"a\":\"" + body + "\"}";
            int where = json.indexOf('\u0001');
            String expected = "FAILED control character 0x01 in a string at byte " + where;
            assertThat(shape(select("a"), json, new Random(at))).isEqualTo(expected);
            assertThat(shape(exclude("a"), json, new Random(at))).isEqualTo(expected);
            String escape = "{\"a\":\"" + "x".repeat(at) + "\\q" + "y".repeat(20) + "\"}";
            assertThat(shape(select("b"), escape, new Random(at))).startsWith("FAILED unexpected 'q' at byte ");
            String hex = "{\"a\":\"" + "x".repeat(at) + "\\u12g4" + "\"}";
            assertThat(shape(select("a"), hex, new Random(at))).startsWith("FAILED unexpected 'g' at byte ");
        }
    }
}
