package dev.sluice.compose;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.config.PartConfig.Shaping;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Fuzz targets for the JSON a composition relays and writes (run by {@code
 * dev.sluice.fuzz.CoreFuzzTest}), checked against Jackson, a real JSON parser, as the reference.
 */
public final class JsonFuzzTargets {

    private JsonFuzzTargets() {}

    /** Jackson with no limit that JsonValidator does not have (its own depth limit is checked apart). */
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(Integer.MAX_VALUE)
                    .maxNumberLength(Integer.MAX_VALUE)
                    .maxStringLength(Integer.MAX_VALUE)
                    .build())
            .build();

    private static final ObjectMapper MAPPER = new ObjectMapper(JSON);

    /**
     * Input: one byte whose low four bits are a chunk size less one, then the bytes to check.
     * JsonValidator's verdict is the same however the bytes are split and whether they come in an
     * array or a direct buffer; it has an error exactly when it fails; on valid UTF-8 within its
     * depth limit it agrees with Jackson; nothing but its verdict comes out (no exception).
     */
    public static void validate(byte[] data) {
        if (data.length == 0) {
            return;
        }
        int chunk = (data[0] & 0x0f) + 1;
        byte[] json = java.util.Arrays.copyOfRange(data, 1, data.length);

        JsonValidator whole = new JsonValidator();
        whole.feed(json, 0, json.length);
        boolean valid = whole.finish();

        JsonValidator split = new JsonValidator();
        for (int i = 0; i < json.length; i += chunk) {
            split.feed(json, i, Math.min(chunk, json.length - i));
        }
        check(split.finish() == valid, "the verdict depends on the split into " + chunk + "-byte chunks", json);
        check(split.error().equals(whole.error()), "the error depends on the split: " + split.error(), json);

        JsonValidator direct = new JsonValidator();
        ByteBuffer buffer = ByteBuffer.allocateDirect(json.length);
        buffer.put(json).flip();
        direct.feed(buffer);
        check(buffer.position() == 0, "feed moved the buffer's position", json);
        check(direct.finish() == valid, "a direct buffer changes the verdict", json);

        check(valid == whole.error().isEmpty(), "error '" + whole.error() + "' with verdict " + valid, json);
        check(whole.failed() == !valid, "failed() disagrees with finish()", json);

        if (!valid && whole.error().startsWith("nesting deeper")) {
            check(depth(json) > JsonValidator.MAX_DEPTH, "a depth error at depth " + depth(json), json);
            return;
        }
        if (!isUtf8(json)) {
            return; // JsonValidator does not decode strings; Jackson rejects malformed UTF-8
        }
        String reference = jacksonVerdict(json);
        check(
                valid == (reference == null),
                "JsonValidator says " + (valid ? "valid" : whole.error()) + ", Jackson says "
                        + (reference == null ? "valid" : reference),
                json);
    }

    /**
     * Input: lines {@code name=json} (a part that answered) or {@code name!error} (a failed part);
     * a part whose JSON Jackson rejects is written as failed. The spliced response (keys, the
     * parts' own bytes, {@code _meta}) is valid JSON to JsonValidator and Jackson, an object with the
     * part names in order, each part's value as it was (or null), then {@code _meta} with every
     * part and the failed ones.
     */
    public static void splice(byte[] data) throws IOException {
        String text = new String(data, UTF_8);
        List<String> names = new ArrayList<>();
        List<byte[]> bodies = new ArrayList<>();
        List<PartOutcome> outcomes = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            int eq = line.indexOf('=');
            int bang = line.indexOf('!');
            int cut = eq < 0 ? bang : bang < 0 ? eq : Math.min(eq, bang);
            String name = cut < 0 ? line : line.substring(0, cut);
            String rest = cut < 0 ? "" : line.substring(cut + 1);
            byte[] body = cut >= 0 && line.charAt(cut) == '=' ? rest.getBytes(UTF_8) : null;
            if (body != null && jacksonVerdict(body) != null) {
                body = null;
            }
            names.add(name);
            bodies.add(body);
            outcomes.add(
                    body != null
                            ? PartOutcome.ok(name, 200, rest.length() * 1_000_003L, body.length)
                            : PartOutcome.failed(name, 502, rest, -rest.length()));
        }
        if (names.size() > 64 || names.contains("_meta")) {
            return; // the config loader refuses a part named _meta (reserved)
        }
        JsonSplice splice = new JsonSplice(names);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < names.size(); i++) {
            out.writeBytes(splice.key(i, i == 0));
            out.writeBytes(bodies.get(i) != null ? bodies.get(i) : JsonSplice.NULL);
        }
        out.writeBytes(JsonSplice.meta(outcomes, text.length() * 7_919L));
        byte[] response = out.toByteArray();

        JsonValidator validator = new JsonValidator();
        validator.feed(response, 0, response.length);
        check(validator.finish(), "JsonValidator rejects the spliced response: " + validator.error(), response);
        String reference = jacksonVerdict(response);
        check(reference == null, "Jackson rejects the spliced response: " + reference, response);

        List<String> keys = new ArrayList<>();
        try (JsonParser parser = JSON.createParser(new String(response, UTF_8))) {
            parser.nextToken();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                keys.add(parser.currentName());
                parser.nextToken();
                parser.skipChildren();
            }
        }
        List<String> expectedKeys = new ArrayList<>(names);
        expectedKeys.add("_meta");
        check(keys.equals(expectedKeys), "keys " + keys + ", expected " + expectedKeys, response);

        JsonNode tree = MAPPER.readTree(new String(response, UTF_8));
        JsonNode meta = tree.get("_meta");
        List<String> failed = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            if (names.indexOf(name) != i || names.lastIndexOf(name) != i) {
                continue; // a repeated name: Jackson keeps one value
            }
            byte[] body = bodies.get(i);
            JsonNode expected = body == null ? MAPPER.nullNode() : MAPPER.readTree(new String(body, UTF_8));
            check(tree.get(name).equals(expected), "part '" + name + "' is " + tree.get(name), response);
            JsonNode part = meta.get("parts").get(name);
            check(part != null && part.get("status").asInt() == outcomes.get(i).status(), "_meta of " + name, response);
            if (body == null) {
                check(
                        part.get("error")
                                .asText()
                                .equals(outcomes.get(i).error().orElseThrow()),
                        "error of " + name,
                        response);
            }
        }
        for (PartOutcome o : outcomes) {
            if (!o.isOk()) {
                failed.add(o.name());
            }
        }
        List<String> listed = new ArrayList<>();
        meta.get("failed").forEach(n -> listed.add(n.asText()));
        check(listed.equals(failed), "_meta.failed is " + listed + ", expected " + failed, response);
    }

    /** The shapings {@link #shape} picks from; the last holds member names of at most 4 bytes. */
    private static final List<Shaping> SHAPINGS = List.of(
            new Shaping(List.of("a", "b.c", "d[*].a"), List.of(), Map.of(), Optional.empty(), 4096),
            new Shaping(List.of(), List.of("a", "b.c"), Map.of(), Optional.empty(), 4096),
            new Shaping(List.of("a", "b"), List.of(), Map.of("a", "z", "b.c", "y"), Optional.empty(), 4096),
            new Shaping(List.of(), List.of("c"), Map.of("b", "a"), Optional.empty(), 4096),
            new Shaping(List.of("a"), List.of(), Map.of(), Optional.of("/b"), 4096),
            new Shaping(List.of(), List.of(), Map.of(), Optional.of("/d/0"), 4096),
            new Shaping(List.of(), List.of(), Map.of(), Optional.of("/a~1b/~0"), 4096),
            new Shaping(List.of("ab"), List.of(), Map.of(), Optional.empty(), 4));

    /**
     * Input: one byte whose low three bits pick a shaping and whose high bits a chunk and room size,
     * then the bytes to shape. JsonShaper never throws; its output and verdict are the same however
     * the input is split and however little room it is given; it fails exactly when JsonValidator
     * does (or, valid input, for a member name over its bound); on valid UTF-8 JSON without escapes
     * or repeated names, its output is what a tree filter over Jackson's tree gives.
     */
    public static void shape(byte[] data) throws IOException {
        if (data.length == 0) {
            return;
        }
        Shaping shaping = SHAPINGS.get(data[0] & 0x07);
        int chunk = ((data[0] >> 3) & 0x07) + 1;
        int room = ((data[0] >> 6) & 0x03) + 1;
        byte[] json = java.util.Arrays.copyOfRange(data, 1, data.length);

        String whole = shaped(shaping, json, json.length, json.length * 4 + 64);
        String split = shaped(shaping, json, chunk, room);
        String bound = "FAILED a member name longer than " + shaping.maxKeyBytes() + " bytes";
        // Failing for a long name or for the JSON may come first in one split and second in another.
        boolean eitherFailure = whole.startsWith("FAILED ")
                && split.startsWith("FAILED ")
                && (whole.startsWith(bound) || split.startsWith(bound));
        check(
                eitherFailure || split.equals(whole),
                "shaping depends on the split (" + chunk + ", room " + room + "): " + split + " vs " + whole,
                json);

        JsonValidator validator = new JsonValidator();
        validator.feed(json, 0, json.length);
        boolean valid = validator.finish();
        if (!valid) {
            check(
                    whole.equals("FAILED " + validator.error()) || whole.startsWith(bound),
                    "invalid JSON (" + validator.error() + ") shaped as " + whole,
                    json);
            return;
        }
        if (whole.startsWith("FAILED ")) {
            check(whole.startsWith(bound), "valid JSON failed: " + whole, json);
            return;
        }
        if (!isUtf8(json) || contains(json, (byte) '\\')) {
            return; // names are matched as written, Jackson's tree decodes escapes
        }
        JsonNode doc;
        try {
            doc = STRICT.readTree(new String(json, UTF_8));
        } catch (IOException e) {
            return; // a repeated member name: Jackson's tree keeps one
        }
        JsonNode want = JsonShaperTest.tree(shaping, doc);
        if (want == null) {
            check(whole.startsWith("ABSENT "), "a value at the take pointer was found: " + whole, json);
            return;
        }
        check(!whole.startsWith("ABSENT "), "no value at the take pointer in " + doc, json);
        JsonNode got = MAPPER.readTree(whole);
        check(got.equals(want), "shaped " + got + ", a tree filter gives " + want, json);
    }

    private static final ObjectMapper STRICT =
            new ObjectMapper(JSON.copy().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION));

    /** Shapes {@code json} fed {@code chunk} bytes at a time into rooms of {@code room} bytes. */
    private static String shaped(Shaping shaping, byte[] json, int chunk, int room) {
        JsonShaper shaper = new JsonShaper(shaping);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[room];
        int pos = 0;
        while (pos < json.length || shaper.hasPending()) {
            int end = Math.min(json.length, pos + chunk);
            int used = shaper.shape(json, pos, end - pos, buffer, 0, room);
            pos += used;
            out.write(buffer, 0, shaper.produced());
            if (used == 0 && shaper.produced() == 0 && !shaper.hasPending() && pos < json.length) {
                throw new AssertionError("no progress at byte " + pos);
            }
        }
        if (!shaper.finish()) {
            return "FAILED " + shaper.error();
        }
        if (shaper.absent()) {
            return "ABSENT " + shaper.error();
        }
        return out.toString(UTF_8);
    }

    private static boolean contains(byte[] bytes, byte b) {
        for (byte x : bytes) {
            if (x == b) {
                return true;
            }
        }
        return false;
    }

    /** Null when Jackson reads exactly one JSON value (whitespace around it), else why not. */
    static String jacksonVerdict(byte[] json) {
        // Decoded here: given bytes, Jackson guesses the encoding, and reads 00 00 00 32 as UTF-32 "2".
        try (JsonParser parser = JSON.createParser(new String(json, UTF_8))) {
            if (parser.nextToken() == null) {
                return "no value";
            }
            parser.skipChildren();
            JsonToken after = parser.nextToken();
            return after == null ? null : "more after the value: " + after;
        } catch (IOException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private static int depth(byte[] json) {
        int depth = 0;
        int max = 0;
        boolean string = false;
        for (int i = 0; i < json.length; i++) {
            byte b = json[i];
            if (string) {
                if (b == '\\') {
                    i++;
                } else if (b == '"') {
                    string = false;
                }
            } else if (b == '"') {
                string = true;
            } else if (b == '[' || b == '{') {
                max = Math.max(max, ++depth);
            } else if (b == ']' || b == '}') {
                depth--;
            }
        }
        return max;
    }

    private static boolean isUtf8(byte[] bytes) {
        try {
            UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static void check(boolean ok, String what, byte[] input) {
        if (!ok) {
            throw new AssertionError(
                    what + " (input: " + new String(input, java.nio.charset.StandardCharsets.ISO_8859_1) + ")");
        }
    }
}
