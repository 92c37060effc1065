package dev.sluice.compose;

import dev.sluice.config.PartConfig;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Finds the values at some JSON pointers in a part's bytes as they pass on their way to the client:
 * a token-level scan (a sibling of {@link JsonShaper}'s, never a tree), so a chained part can start
 * as soon as the value it needs has streamed past, not when the earlier part ends. Memory: a frame per
 * nesting level down to the deepest pointer (its member name, at most as long as the longest token
 * plus one), and each value found, at most {@code maxValue} bytes.
 *
 * <p>A value is a scalar (a string, decoded; a number or {@code true}/{@code false} as written) or an
 * array of scalars, joined by commas. {@code null}, an object, an array holding anything else, or a
 * value longer than {@code maxValue} is a {@link #problem}; so is a pointer naming nothing, known once
 * the body ends ({@link #finish}). Member names are matched as the upstream writes them (escapes
 * not decoded), as {@link JsonShaper} matches them. Once every pointer is resolved the scan stops:
 * {@link #feed} returns at once. Invalid JSON stops it too, leaving the unresolved pointers to
 * {@link #finish} (the part's own checks report invalid JSON when it is validated or shaped).
 *
 * <p>Not thread-safe: fed by one thread, read after it (the plan's guard orders them).
 */
public final class JsonPointerTap {

    private static final byte OBJECT = 1;
    private static final byte ARRAY = 2;

    // states
    private static final int VALUE = 0; // a value may begin (or, inside a container, its end)
    private static final int KEY = 1; // in an object: a key's '"', or '}'
    private static final int IN_KEY = 2;
    private static final int KEY_ESCAPE = 3;
    private static final int COLON = 4;
    private static final int AFTER = 5; // after a value: ',' or a closing bracket
    private static final int IN_STRING = 6;
    private static final int STRING_ESCAPE = 7;
    private static final int SCALAR = 8; // a number or a literal, until a delimiter
    private static final int STOPPED = 9; // every pointer resolved, or the JSON broke

    private final byte[][][] tokens; // per pointer, its reference tokens as UTF-8
    private final String[] pointers;
    private final int maxValue;
    private final int maxDepth; // the deepest pointer's length: keys below it are not kept
    private final String[] values;
    private final List<String>[] lists; // each value's scalars, one for a scalar
    private final String[] problems;
    private int resolved;

    private byte[] kinds = new byte[8];
    private byte[][] keys = new byte[8][];
    private int[] keyLengths = new int[8];
    private int[] indexes = new int[8];
    private int depth;
    private int state = VALUE;

    private int capturing = -1; // the pointer whose value is being read
    private int captureDepth; // the depth of the array being captured, or -1 for a scalar
    private boolean captureString;
    private final ByteArrayOutputStream capture = new ByteArrayOutputStream();
    private final StringBuilder joined = new StringBuilder();
    private int elements;
    private final List<String> scalars = new java.util.ArrayList<>();

    /**
     * @param source what precedes a pointer in a problem's text ({@code product:})
     * @param pointers JSON pointers (RFC 6901), each well formed ({@link
     *     PartConfig.Shaping#pointerProblem})
     * @param maxValue the longest value kept, in bytes as the upstream writes them
     */
    public JsonPointerTap(String source, List<String> pointers, int maxValue) {
        this.pointers = pointers.stream().map(p -> source + p).toArray(String[]::new);
        this.maxValue = maxValue;
        this.tokens = new byte[this.pointers.length][][];
        int deepest = 0;
        for (int k = 0; k < this.pointers.length; k++) {
            List<String> t = PartConfig.Shaping.tokens(pointers.get(k));
            tokens[k] = new byte[t.size()][];
            for (int j = 0; j < t.size(); j++) {
                tokens[k][j] = t.get(j).getBytes(StandardCharsets.UTF_8);
            }
            deepest = Math.max(deepest, t.size());
        }
        this.maxDepth = deepest;
        this.values = new String[this.pointers.length];
        @SuppressWarnings("unchecked")
        List<String>[] l = new List[this.pointers.length];
        this.lists = l;
        this.problems = new String[this.pointers.length];
    }

    /** How many pointers are resolved so far (a value, or a problem); it only grows. */
    public int resolved() {
        return resolved;
    }

    /** Whether pointer {@code k} is resolved. */
    public boolean isResolved(int k) {
        return values[k] != null || problems[k] != null;
    }

    /** Pointer {@code k}'s value, or null (unresolved, or a {@link #problem}). */
    public String value(int k) {
        return values[k];
    }

    /** Pointer {@code k}'s value as its scalars (an array's elements; a scalar alone), or null. */
    public List<String> scalars(int k) {
        return lists[k];
    }

    /** Why pointer {@code k} has no value, or null. */
    public String problem(int k) {
        return problems[k];
    }

    /** Scans {@code length} bytes from {@code offset}. */
    public void feed(byte[] bytes, int offset, int length) {
        for (int i = offset, end = offset + length; i < end && state != STOPPED; i++) {
            step(bytes[i]);
        }
    }

    /** Scans the buffer's remaining bytes, leaving its position as it is. */
    public void feed(ByteBuffer bytes) {
        if (bytes.hasArray()) {
            feed(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
            return;
        }
        for (int i = bytes.position(), end = bytes.limit(); i < end && state != STOPPED; i++) {
            step(bytes.get(i));
        }
    }

    /** The body ended: every pointer not resolved names no value. */
    public void finish() {
        if (capturing >= 0 && state == SCALAR && depth == 0) {
            endScalar(); // a top-level number ends with the body
        }
        capturing = -1;
        for (int k = 0; k < pointers.length; k++) {
            if (!isResolved(k)) {
                resolve(k, null, "no value at '" + pointers[k] + "'");
            }
        }
        state = STOPPED;
    }

    private void step(byte b) {
        switch (state) {
            case IN_STRING -> {
                if (b == '"') {
                    state = AFTER;
                    if (capturing >= 0 && captureString) {
                        captureString = false;
                        scalar(unescape(capture.toByteArray()));
                    }
                } else {
                    if (b == '\\') {
                        state = STRING_ESCAPE;
                    }
                    keep(b);
                }
            }
            case STRING_ESCAPE -> {
                state = IN_STRING;
                keep(b);
            }
            case IN_KEY -> {
                if (b == '"') {
                    state = COLON;
                } else {
                    if (b == '\\') {
                        state = KEY_ESCAPE;
                    }
                    keyByte(b);
                }
            }
            case KEY_ESCAPE -> {
                state = IN_KEY;
                keyByte(b);
            }
            case SCALAR -> {
                if (b == ',' || b == ']' || b == '}' || isSpace(b)) {
                    if (capturing >= 0 && captureString) {
                        captureString = false;
                        endScalar();
                    }
                    state = AFTER;
                    step(b);
                } else {
                    keep(b);
                }
            }
            default -> structural(b);
        }
    }

    private void structural(byte b) {
        if (isSpace(b)) {
            return;
        }
        switch (state) {
            case VALUE -> {
                if (b == ']' && depth > 0 && kinds[depth - 1] == ARRAY && indexes[depth - 1] == 0) {
                    close(); // an empty array
                    return;
                }
                beginValue(b);
            }
            case KEY -> {
                if (b == '"') {
                    keyLengths[depth - 1] = 0;
                    state = IN_KEY;
                } else if (b == '}') {
                    close();
                } else {
                    broken();
                }
            }
            case COLON -> {
                if (b == ':') {
                    state = VALUE;
                } else {
                    broken();
                }
            }
            case AFTER -> {
                if (depth == 0) {
                    broken(); // bytes after the value
                } else if (b == ',') {
                    if (kinds[depth - 1] == ARRAY) {
                        indexes[depth - 1]++;
                        state = VALUE;
                    } else {
                        state = KEY;
                    }
                } else if (b == (kinds[depth - 1] == ARRAY ? ']' : '}')) {
                    close();
                } else {
                    broken();
                }
            }
            default -> broken();
        }
    }

    /** A value begins with {@code b} at the current path. */
    private void beginValue(byte b) {
        if (capturing < 0) {
            int k = matching();
            if (k >= 0) {
                capturing = k;
                capture.reset();
                if (b == '{') {
                    stopCapture(
                            null,
                            "the value at '" + pointers[k]
                                    + "' is an object (expected: a scalar or an array of scalars)");
                } else if (b == '[') {
                    captureDepth = depth + 1;
                    joined.setLength(0);
                    scalars.clear();
                    elements = 0;
                } else {
                    captureDepth = -1;
                    captureString = true; // a scalar, captured until its end
                }
            }
        } else if (depth == captureDepth && b != '[' && b != '{') {
            captureString = true; // an element of the array captured
            capture.reset();
        } else if (depth == captureDepth) {
            stopCapture(
                    null, "the value at '" + pointers[capturing] + "' holds an array or object (expected: scalars)");
        }
        switch (b) {
            case '{' -> push(OBJECT);
            case '[' -> push(ARRAY);
            case '"' -> state = IN_STRING;
            default -> {
                if (b == '-' || (b >= '0' && b <= '9') || b == 't' || b == 'f' || b == 'n') {
                    state = SCALAR;
                    keep(b);
                } else {
                    broken();
                }
            }
        }
        if (b == '"' && captureString) {
            capture.reset(); // the quote is not part of the value
        }
    }

    private void push(byte kind) {
        if (depth == kinds.length) {
            int n = depth * 2;
            kinds = java.util.Arrays.copyOf(kinds, n);
            keys = java.util.Arrays.copyOf(keys, n);
            keyLengths = java.util.Arrays.copyOf(keyLengths, n);
            indexes = java.util.Arrays.copyOf(indexes, n);
        }
        kinds[depth] = kind;
        keyLengths[depth] = 0;
        indexes[depth] = 0;
        depth++;
        state = kind == OBJECT ? KEY : VALUE;
    }

    private void close() {
        depth--;
        state = AFTER;
        if (capturing >= 0 && depth + 1 == captureDepth) {
            int k = capturing;
            capturing = -1;
            lists[k] = List.copyOf(scalars);
            resolve(k, joined.toString(), null);
        }
    }

    /** Bytes of a string or scalar value: kept when they are the captured value's. */
    private void keep(byte b) {
        if (captureString) {
            if (capture.size() >= maxValue || joined.length() + capture.size() >= maxValue) {
                stopCapture(
                        null,
                        "the value at '" + pointers[capturing] + "' is longer than max-value (" + maxValue + " bytes)");
                return;
            }
            capture.write(b);
        }
    }

    private void endScalar() {
        String text = capture.toString(StandardCharsets.UTF_8);
        if (text.equals("null")) {
            String what = captureDepth < 0 ? "is null" : "holds null";
            stopCapture(
                    null,
                    "the value at '" + pointers[capturing] + "' " + what
                            + " (expected: a scalar or an array of scalars)");
            return;
        }
        scalar(text);
    }

    /** A scalar of the captured value ended: the value itself, or one element of its array. */
    private void scalar(String text) {
        if (captureDepth < 0) {
            int k = capturing;
            capturing = -1;
            lists[k] = List.of(text);
            resolve(k, text, null);
            return;
        }
        if (elements++ > 0) {
            joined.append(',');
        }
        joined.append(text);
        scalars.add(text);
        if (joined.length() > maxValue) {
            stopCapture(
                    null,
                    "the value at '" + pointers[capturing] + "' is longer than max-value (" + maxValue + " bytes)");
        }
    }

    private void stopCapture(String value, String problem) {
        int k = capturing;
        capturing = -1;
        captureString = false;
        resolve(k, value, problem);
    }

    private void resolve(int k, String value, String problem) {
        if (isResolved(k)) {
            return;
        }
        values[k] = value;
        problems[k] = problem;
        resolved++;
        if (resolved == pointers.length) {
            state = STOPPED;
        }
    }

    /** The JSON broke: the scan stops, and {@link #finish} reports what it did not find. */
    private void broken() {
        capturing = -1;
        captureString = false;
        state = STOPPED;
    }

    private void keyByte(byte b) {
        int d = depth - 1;
        if (depth > maxDepth) {
            return;
        }
        byte[] key = keys[d];
        if (key == null) {
            key = keys[d] = new byte[16];
        }
        int n = keyLengths[d];
        if (n == key.length) {
            if (n > longestToken()) {
                return; // longer than any token: it matches none, its length says so
            }
            key = keys[d] = java.util.Arrays.copyOf(key, n * 2);
        }
        if (n < key.length) {
            key[n] = b;
        }
        keyLengths[d] = n + 1;
    }

    private int longest = -1;

    private int longestToken() {
        if (longest < 0) {
            longest = 0;
            for (byte[][] t : tokens) {
                for (byte[] token : t) {
                    longest = Math.max(longest, token.length);
                }
            }
        }
        return longest;
    }

    /** The unresolved pointer naming the value that begins at the current path, or -1. */
    private int matching() {
        if (depth > maxDepth) {
            return -1;
        }
        for (int k = 0; k < tokens.length; k++) {
            if (!isResolved(k) && tokens[k].length == depth && onPath(tokens[k])) {
                return k;
            }
        }
        return -1;
    }

    private boolean onPath(byte[][] pointer) {
        for (int d = 0; d < depth; d++) {
            byte[] token = pointer[d];
            if (kinds[d] == OBJECT) {
                if (keyLengths[d] != token.length
                        || !java.util.Arrays.equals(keys[d], 0, token.length, token, 0, token.length)) {
                    return false;
                }
            } else if (!isIndex(token, indexes[d])) {
                return false;
            }
        }
        return true;
    }

    private static boolean isIndex(byte[] token, int index) {
        if (token.length == 0 || (token.length > 1 && token[0] == '0')) {
            return false;
        }
        long n = 0;
        for (byte b : token) {
            if (b < '0' || b > '9' || n > Integer.MAX_VALUE) {
                return false;
            }
            n = n * 10 + (b - '0');
        }
        return n == index;
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }

    /** A JSON string's content, its escapes decoded. */
    static String unescape(byte[] raw) {
        String s = new String(raw, StandardCharsets.UTF_8);
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 == s.length()) {
                out.append(c);
                continue;
            }
            char e = s.charAt(++i);
            switch (e) {
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (i + 4 < s.length()) {
                        try {
                            out.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                            i += 4;
                        } catch (NumberFormatException bad) {
                            out.append(e);
                        }
                    } else {
                        out.append(e);
                    }
                }
                default -> out.append(e); // '"', '\\', '/'
            }
        }
        return out.toString();
    }
}
