package dev.sluice.compose;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.PartConfig.Shaping;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A part's {@code take}, {@code select}, {@code exclude} and {@code rename}, applied to its JSON
 * bytes as they pass: a token-level filter, never a tree. Input is checked by a {@link
 * JsonValidator} in the same pass, each byte before the filter acts on it (so invalid JSON is
 * reported as {@code validate-json} reports it, and the filter only ever acts on valid JSON): a
 * value kept or dropped whole is read by the validator alone and copied as one run or skipped; in
 * the containers being filtered the filter takes the separators and member names itself, on the
 * validator's state, and writes its own commas and keys where members were dropped or renamed.
 *
 * <pre>
 *   in ──► one pass: check + kept? ──► out (the caller's room; what does not fit waits here)
 * </pre>
 *
 * <p>Memory: one frame per nesting level ({@link JsonValidator#MAX_DEPTH} at most), the member name
 * being decided on (at most {@link Shaping#maxKeyBytes()}), and the output of one input byte that
 * did not fit the caller's room. Member names are matched as the upstream writes them (escapes are
 * not decoded); arrays are transparent to paths ({@code images[*].url} is {@code images.url}).
 * Not thread-safe: one instance per body.
 */
public final class JsonShaper {

    // what becomes of a value
    private static final byte DROP = 0;
    private static final byte KEEP = 1; // every byte of it, as sent
    private static final byte FILTER = 2; // its members by a node, arrays element by element
    private static final byte NAV = 3; // on the way to the take pointer's value

    private final JsonValidator validator = new JsonValidator();
    private final Node root; // null: the value is kept whole
    private final byte[][] take; // null: no take; else the pointer's tokens, JSON-escaped
    private final String pointer;
    private final int maxKey;

    // frames, one per open container being filtered (others are read by the validator alone)
    private byte[] kind = new byte[16]; // '{' or '['
    private byte[] mode = new byte[16];
    private Node[] node = new Node[16];
    private int[] nav = new int[16]; // NAV: the pointer token this container is matched against
    private int[] count = new int[16]; // FILTER: members written; NAV arrays: elements seen
    private int depth;

    private boolean scanning; // inside a value read by the validator alone
    private boolean scanKeep; // and written as it is
    private byte valueMode; // of the value begun last
    private byte nextMode; // of the next member's value, decided at its key
    private Node nextNode;
    private int nextNav;
    private boolean found;

    private byte[] keyBuffer; // the member name being decided on; grows up to maxKey
    private int keyLength;

    private byte[] pending = new byte[64]; // output that did not fit the caller's room
    private int pendingStart;
    private int pendingEnd;
    private byte[] out;
    private int outPos;
    private int outEnd;
    private int produced;

    private long consumed; // input bytes shaped
    private String error = "";
    private boolean failed;

    public JsonShaper(Shaping shaping) {
        requireNonNull(shaping, "shaping");
        this.root = Node.of(shaping);
        this.maxKey = shaping.maxKeyBytes();
        this.keyBuffer = new byte[Math.min(maxKey, 256)];
        this.pointer = shaping.take().orElse(null);
        if (pointer == null) {
            this.take = null;
            nextMode = root == null ? KEEP : FILTER;
        } else {
            List<String> tokens = Shaping.tokens(pointer);
            this.take = new byte[tokens.size()][];
            for (int i = 0; i < take.length; i++) {
                take[i] = escaped(tokens.get(i));
            }
            nextMode = NAV;
        }
        nextNode = root;
    }

    /**
     * Shapes input from {@code in[offset..offset+length)} into {@code out[outOffset..outOffset+room)},
     * until the input is used up or the room is full.
     *
     * @return how many input bytes were used; {@link #produced()} says how many were written
     */
    public int shape(byte[] in, int offset, int length, byte[] out, int outOffset, int room) {
        requireNonNull(in, "in");
        requireNonNull(out, "out");
        Objects.checkFromIndexSize(offset, length, in.length);
        Objects.checkFromIndexSize(outOffset, room, out.length);
        this.out = out;
        this.outPos = outOffset;
        this.outEnd = outOffset + room;
        drain();
        int used = 0;
        if (failed) {
            used = length; // the part fails: the rest is not wanted
        } else if (pendingStart == pendingEnd) {
            used = run(in, offset, length);
        }
        consumed += used;
        produced = outPos - outOffset;
        this.out = null;
        return used;
    }

    /** Bytes written by the last {@link #shape}. */
    public int produced() {
        return produced;
    }

    /** Whether output waits for room: shape again (with no input if need be) before the end. */
    public boolean hasPending() {
        return pendingStart != pendingEnd;
    }

    /** Input bytes used so far. */
    public long consumed() {
        return consumed;
    }

    /** Whether the input is not JSON, or broke a bound. */
    public boolean failed() {
        return failed;
    }

    /**
     * Ends the input.
     *
     * @return whether it was one complete JSON value (then {@link #absent()} says whether the take
     *     pointer found its value)
     */
    public boolean finish() {
        if (!failed && !validator.finish()) {
            fail(validator.error());
        }
        return !failed;
    }

    /** After a successful {@link #finish()}: the take pointer named no value, so nothing was written. */
    public boolean absent() {
        return take != null && !found;
    }

    /** Why the part fails: {@code invalid JSON: ...}, a bound, or for {@link #absent()} the pointer. */
    public String error() {
        if (!failed && absent()) {
            return "take: no value at '" + pointer + "'";
        }
        return error;
    }

    private void fail(String reason) {
        if (!failed) {
            failed = true;
            error = reason;
        }
    }

    // ---- the filter ----

    private int run(byte[] in, int offset, int length) {
        // Two ways through the input. A value kept or dropped whole (every scalar, and a container
        // not filtered) is read by the validator alone, JsonValidator.scan, up to its end, and copied
        // as one run when kept. Between such values, in the containers being filtered, this loop takes
        // the separators and member names itself (setting the validator's state, which it shares),
        // and passes anything else, brackets and escapes and errors, to the validator's step().
        JsonValidator v = validator;
        int end = offset + length;
        int i = offset;
        long base = v.position - offset; // the validator's position is base + i
        while (i < end && pendingStart == pendingEnd) {
            if (scanning) {
                int limit = scanKeep ? i + Math.min(end - i, outEnd - outPos) : end;
                if (limit == i) {
                    break; // no room
                }
                v.position = base + i;
                int j = v.scan(in, i, limit, depth);
                if (scanKeep) {
                    System.arraycopy(in, i, out, outPos, j - i);
                    outPos += j - i;
                }
                i = j;
                if (v.failed()) {
                    fail(v.error());
                    return length;
                }
                scanning = v.depth != depth || (v.state != JsonValidator.AFTER_VALUE && v.state != JsonValidator.END);
                continue;
            }
            byte b = in[i];
            int c = b & 0xff;
            int st = v.state;
            if (st < JsonValidator.STRING && (c == ' ' || c == '\n' || c == '\r' || c == '\t')) {
                i++; // whitespace between the tokens of a filtered container is not written
                continue;
            }
            switch (st) {
                case JsonValidator.STRING -> { // a member name, held until its end decides the member
                    int j = JsonValidator.plainEnd(in, i, end);
                    if (j > i) {
                        if (!keyBytes(in, i, j - i)) {
                            return length;
                        }
                        i = j;
                        continue;
                    }
                    if (c == '"') {
                        v.state = JsonValidator.COLON;
                        i++;
                        endKey(keyBuffer, 0, keyLength);
                        continue;
                    }
                }
                case JsonValidator.OBJECT_FIRST, JsonValidator.KEY -> {
                    int k = c == '"' ? memberName(in, i, end) : -1;
                    if (k >= 0) {
                        i = k;
                        continue;
                    }
                    if (c == '"') { // held in the key buffer until it ends
                        v.state = JsonValidator.STRING;
                        v.stringIsKey = true;
                        keyLength = 0;
                        i++;
                        continue;
                    }
                }
                case JsonValidator.COLON -> {
                    if (c == ':') {
                        v.state = JsonValidator.VALUE;
                        i++;
                        continue;
                    }
                }
                case JsonValidator.AFTER_VALUE -> {
                    if (c == ',') {
                        i++;
                        if (kind[depth - 1] == '[') {
                            v.state = JsonValidator.VALUE;
                            int k = i < end ? simpleValue(in, i, end) : -1;
                            if (k >= 0) {
                                i = k;
                            }
                            continue;
                        }
                        v.state = JsonValidator.KEY;
                        int k = i < end && in[i] == '"' ? memberName(in, i, end) : -1; // the usual next byte
                        if (k >= 0) {
                            i = k;
                        }
                        continue;
                    }
                }
                case JsonValidator.START, JsonValidator.VALUE, JsonValidator.ARRAY_FIRST -> {
                    int k = simpleValue(in, i, end);
                    if (k >= 0) {
                        i = k;
                        continue;
                    }
                    if (startsValue(c)) {
                        beginValue();
                        if ((c == '{' || c == '[') && (valueMode == FILTER || valueMode == NAV)) {
                            break; // opened below, once the validator took it
                        }
                        scanning = true; // the validator reads it from its first byte
                        scanKeep = valueMode == KEEP || valueMode == FILTER; // a scalar to filter is kept
                        continue;
                    }
                }
                default -> {}
            }
            // the rest: brackets, escapes in member names, and anything invalid
            v.position = base + i;
            v.step(c);
            if (v.failed()) {
                fail(v.error());
                return length;
            }
            i++;
            switch (st) {
                case JsonValidator.STRING, JsonValidator.ESCAPE, JsonValidator.UNICODE -> keyByte(b);
                default -> {
                    if (c == '{' || c == '[') {
                        push(b, valueMode);
                        if (valueMode == FILTER) {
                            emit(b);
                        }
                    } else { // '}' or ']', as the validator found it
                        depth--;
                        if (mode[depth] == FILTER) {
                            emit(b);
                        }
                    }
                }
            }
            if (failed) {
                return length;
            }
        }
        v.position = base + i;
        return i - offset;
    }

    /**
     * A member name at {@code in[i]} ('"'), when it is wholly in the chunk with no escape and within
     * the bound: decided where it lies, with its ':' when that follows at once.
     *
     * @return the index after it, or -1 when it must go byte by byte
     */
    private int memberName(byte[] in, int i, int end) {
        int close = JsonValidator.plainEnd(in, i + 1, end);
        if (close == end || in[close] != '"' || close - i - 1 > maxKey) {
            return -1;
        }
        validator.state = JsonValidator.COLON;
        endKey(in, i + 1, close - i - 1);
        i = close + 1;
        if (i < end && in[i] == ':') {
            validator.state = JsonValidator.VALUE;
            i++;
            int k = i < end ? simpleValue(in, i, end) : -1; // the usual next byte
            if (k >= 0) {
                i = k;
            }
        }
        return i;
    }

    /**
     * A plain string or integer at {@code in[i]}, where a value is expected, wholly in the chunk
     * ({@link JsonValidator#simpleValueEnd}): begun, and copied or skipped at once (or left to the
     * validator's scan when it is kept and cannot be written now).
     *
     * @return the index after what was taken, or -1 when it is not such a value
     */
    private int simpleValue(byte[] in, int i, int end) {
        int k = JsonValidator.simpleValueEnd(in, i, end);
        if (k < 0) {
            return -1;
        }
        beginValue();
        scanKeep = valueMode == KEEP || valueMode == FILTER; // a scalar to filter is kept
        if (scanKeep) {
            if (pendingStart != pendingEnd || k - i > outEnd - outPos) {
                scanning = true; // no room for it whole
                return i;
            }
            System.arraycopy(in, i, out, outPos, k - i);
            outPos += k - i;
        }
        validator.state = depth == 0 ? JsonValidator.END : JsonValidator.AFTER_VALUE;
        return k;
    }

    private static boolean startsValue(int c) {
        return c == '"'
                || (c >= '0' && c <= '9')
                || c == '{'
                || c == '['
                || c == '-'
                || c == 't'
                || c == 'f'
                || c == 'n';
    }

    /** A value begins: what becomes of it ({@link #valueMode}, and for a container its node and pointer token). */
    private void beginValue() {
        byte m;
        Node n;
        int k;
        if (depth > 0 && kind[depth - 1] == '[') {
            int f = depth - 1;
            n = node[f];
            k = nav[f] + 1;
            m = mode[f];
            if (m == FILTER && count[f]++ > 0) {
                emit((byte) ',');
            } else if (m == NAV) {
                int index = count[f]++;
                m = nav[f] < take.length && isIndex(take[nav[f]], index) ? NAV : DROP;
            }
        } else {
            m = nextMode;
            n = nextNode;
            k = nextNav;
        }
        if (m == NAV) {
            if (found) {
                m = DROP;
            } else if (k == take.length) {
                found = true;
                m = root == null ? KEEP : FILTER;
                n = root;
            }
        }
        valueMode = m;
        nextNode = n;
        nextNav = k;
    }

    private void push(byte open, byte m) {
        if (depth == kind.length) {
            int size = Math.min(JsonValidator.MAX_DEPTH + 1, depth * 2);
            kind = Arrays.copyOf(kind, size);
            mode = Arrays.copyOf(mode, size);
            node = Arrays.copyOf(node, size);
            nav = Arrays.copyOf(nav, size);
            count = Arrays.copyOf(count, size);
        }
        kind[depth] = open;
        mode[depth] = m;
        node[depth] = m == FILTER ? nextNode : null;
        nav[depth] = m == NAV ? nextNav : 0;
        count[depth] = 0;
        depth++;
    }

    private boolean keyBytes(byte[] in, int offset, int n) {
        if (keyLength + n > maxKey) {
            fail("a member name longer than " + maxKey + " bytes (the part's shaping holds names up to max-key-bytes)");
            return false;
        }
        if (keyLength + n > keyBuffer.length) {
            keyBuffer = Arrays.copyOf(keyBuffer, Math.min(maxKey, Math.max(keyBuffer.length * 2, keyLength + n)));
        }
        System.arraycopy(in, offset, keyBuffer, keyLength, n);
        keyLength += n;
        return true;
    }

    private void keyByte(byte b) {
        if (keyLength == maxKey) {
            fail("a member name longer than " + maxKey + " bytes (the part's shaping holds names up to max-key-bytes)");
            return;
        }
        if (keyLength == keyBuffer.length) {
            keyBuffer = Arrays.copyOf(keyBuffer, Math.min(maxKey, keyBuffer.length * 2));
        }
        keyBuffer[keyLength++] = b;
    }

    /**
     * A member name ended, {@code name[from..from+length)} (in the input, or the key buffer when it
     * was split or escaped): decides its value's fate, and writes the name when the member is kept.
     */
    private void endKey(byte[] name, int from, int length) {
        int f = depth - 1;
        byte container = mode[f]; // FILTER or NAV: members of other containers are read by the validator alone
        if (container == NAV) {
            int k = nav[f];
            boolean match = !found && k < take.length && equal(take[k], name, from, length);
            nextMode = match ? NAV : DROP;
            nextNav = k + 1;
            return;
        }
        Node parent = node[f];
        Node child = parent.find(name, from, length);
        if (child != null) {
            if (child.drop) {
                nextMode = DROP;
                return;
            }
            nextMode = child.trivial() ? KEEP : FILTER;
            nextNode = child;
        } else if (parent.isRenameTarget(name, from, length) || !parent.all) {
            nextMode = DROP;
            return;
        } else {
            nextMode = KEEP;
        }
        if (count[f]++ > 0) {
            emit((byte) ',');
        }
        emit((byte) '"');
        byte[] renamed = child != null ? child.rename : null;
        if (renamed != null) {
            emit(renamed, 0, renamed.length);
        } else {
            emit(name, from, length);
        }
        emit((byte) '"');
        emit((byte) ':');
    }

    private void emit(byte b) {
        if (pendingStart == pendingEnd && outPos < outEnd) {
            out[outPos++] = b;
            return;
        }
        if (pendingEnd == pending.length) {
            pending = Arrays.copyOf(pending, pending.length * 2);
        }
        pending[pendingEnd++] = b;
    }

    private void emit(byte[] bytes, int from, int n) {
        if (pendingStart == pendingEnd && outEnd - outPos >= n) {
            System.arraycopy(bytes, from, out, outPos, n);
            outPos += n;
            return;
        }
        for (int i = from; i < from + n; i++) {
            emit(bytes[i]);
        }
    }

    private void drain() {
        int n = Math.min(pendingEnd - pendingStart, outEnd - outPos);
        System.arraycopy(pending, pendingStart, out, outPos, n);
        outPos += n;
        pendingStart += n;
        if (pendingStart == pendingEnd) {
            pendingStart = 0;
            pendingEnd = 0;
        }
    }

    private static boolean isIndex(byte[] token, int index) {
        if (token.length == 0 || token.length > 10 || (token[0] == '0' && token.length > 1)) {
            return false;
        }
        long v = 0;
        for (byte b : token) {
            if (b < '0' || b > '9') {
                return false;
            }
            v = v * 10 + (b - '0');
        }
        return v == index;
    }

    /** Whether {@code a} holds the bytes {@code b[from..from+length)}. */
    private static boolean equal(byte[] a, byte[] b, int from, int length) {
        if (a.length != length) {
            return false;
        }
        for (int i = 0; i < length; i++) { // member names are short: a plain loop beats Arrays.equals' setup
            if (a[i] != b[from + i]) {
                return false;
            }
        }
        return true;
    }

    /** A member name as it appears between the quotes of a JSON string. */
    static byte[] escaped(String name) {
        StringBuilder s = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '"' || c == '\\') {
                s.append('\\').append(c);
            } else if (c < 0x20) {
                s.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
            } else {
                s.append(c);
            }
        }
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** What a shaping keeps of one object's members (and, arrays being transparent, of each element's). */
    private static final class Node {
        final byte[] name;
        // arrays, not lists: looked up at every member name
        Node[] children = {};
        byte[][] renameTargets = {};
        boolean all; // members not listed are kept
        boolean drop; // this member is excluded
        byte[] rename; // this member's new name

        Node(byte[] name, boolean all) {
            this.name = name;
            this.all = all;
        }

        /** Null when the shaping keeps everything (no select, exclude or rename). */
        static Node of(Shaping s) {
            if (s.select().isEmpty() && s.exclude().isEmpty() && s.rename().isEmpty()) {
                return null;
            }
            boolean selecting = !s.select().isEmpty();
            Node root = new Node(new byte[0], !selecting);
            for (String path : s.select()) {
                root.walk(Shaping.segments(path), false).all = true;
            }
            for (String path : s.exclude()) {
                root.walk(Shaping.segments(path), true).drop = true;
            }
            for (Map.Entry<String, String> e : s.rename().entrySet()) {
                List<String> segments = Shaping.segments(e.getKey());
                Node member = root.walk(segments, !selecting);
                member.rename = escaped(e.getValue());
                Node parent = segments.size() == 1 ? root : root.walk(segments.subList(0, segments.size() - 1), true);
                parent.renameTargets = Arrays.copyOf(parent.renameTargets, parent.renameTargets.length + 1);
                parent.renameTargets[parent.renameTargets.length - 1] = member.rename;
            }
            return root;
        }

        Node walk(List<String> segments, boolean all) {
            Node n = this;
            for (String segment : segments) {
                byte[] b = escaped(segment);
                Node child = n.find(b, 0, b.length);
                if (child == null) {
                    child = new Node(b, all || n.all);
                    n.children = Arrays.copyOf(n.children, n.children.length + 1);
                    n.children[n.children.length - 1] = child;
                }
                n = child;
            }
            return n;
        }

        /** The child named {@code key[from..from+length)}, or null. */
        Node find(byte[] key, int from, int length) {
            for (Node child : children) {
                if (equal(child.name, key, from, length)) {
                    return child;
                }
            }
            return null;
        }

        boolean isRenameTarget(byte[] key, int from, int length) {
            for (byte[] t : renameTargets) {
                if (equal(t, key, from, length)) {
                    return true;
                }
            }
            return false;
        }

        /** Kept whole: nothing below it is dropped or renamed. */
        boolean trivial() {
            return all && children.length == 0 && renameTargets.length == 0;
        }
    }
}
