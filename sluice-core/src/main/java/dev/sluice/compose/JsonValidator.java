package dev.sluice.compose;

import static java.util.Objects.requireNonNull;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * An incremental JSON syntax checker (RFC 8259): bytes are fed as they arrive, in any split, and
 * checked one at a time by a state machine. No tree is built: memory is one byte per nesting level
 * (capped at {@link #MAX_DEPTH}). String contents are not decoded; bytes of 0x80 and above pass
 * through as UTF-8. Not thread-safe: one instance per body.
 *
 * <pre>
 *   JsonValidator v = new JsonValidator();
 *   v.feed(chunk1); v.feed(chunk2); ...
 *   if (!v.finish()) { ... v.error() ... }
 * </pre>
 */
public final class JsonValidator {

    /** Nesting deeper than this fails. */
    public static final int MAX_DEPTH = 1000;

    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    /** Eight bytes of an array as one little-endian long: string runs are scanned a word at a time. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = ONES * '"';
    private static final long BACKSLASHES = ONES * '\\';
    private static final long SPACES = ONES * 0x20;

    private static final byte OBJECT = 1;
    private static final byte ARRAY = 2;

    // states (the structural ones and the string ones are read and set by JsonShaper too)
    static final int START = 0; // expecting the top-level value
    static final int VALUE = 1; // after ':' or after ',' in an array
    static final int ARRAY_FIRST = 2; // after '[': a value or ']'
    static final int OBJECT_FIRST = 3; // after '{': a key or '}'
    static final int KEY = 4; // after ',' in an object
    static final int COLON = 5; // after a key
    static final int AFTER_VALUE = 6; // inside a container: ',' or its closing bracket
    static final int END = 7; // after the top-level value: whitespace only
    static final int STRING = 8;
    static final int ESCAPE = 9;
    static final int UNICODE = 10; // inside \\uXXXX, hexLeft digits to go
    private static final int MINUS = 11; // '-' seen: a digit must follow
    private static final int ZERO = 12; // a leading 0: '.', 'e' or the end
    private static final int INTEGER = 13;
    private static final int DOT = 14; // a digit must follow
    private static final int FRACTION = 15;
    private static final int EXPONENT = 16; // after 'e': sign or digit
    private static final int EXPONENT_SIGN = 17; // a digit must follow
    private static final int EXPONENT_DIGITS = 18;
    private static final int LITERAL = 19;
    private static final int FAILED = 20;

    private byte[] stack = new byte[16];
    int depth;
    int state = START;
    boolean stringIsKey;
    private int hexLeft;
    private byte[] literal;
    private int literalIndex;
    long position; // offset of the next byte in the whole input
    private String error = "";

    public JsonValidator() {}

    /** Checks {@code length} bytes of {@code bytes} from {@code offset}. */
    public void feed(byte[] bytes, int offset, int length) {
        requireNonNull(bytes, "bytes");
        Objects.checkFromIndexSize(offset, length, bytes.length);
        scan(bytes, offset, offset + length, -1);
    }

    /**
     * Checks {@code bytes[from..end)}, stopping early, before the next byte, once a value that ends
     * at depth {@code stopDepth} is complete (the state then {@link #AFTER_VALUE} or {@link #END}), or
     * at the first error; {@code -1} never stops early. A number is complete at the byte after it,
     * which is then left unread.
     *
     * @return the index of the first byte not checked
     */
    int scan(byte[] b, int from, int end, int stopDepth) {
        // The common transitions of valid JSON are taken here with the state in locals; every other
        // byte (escapes, fractions, exponents, errors, growing the stack) is passed to step(), the
        // reference, with the fields written back first. A value ends only on this fast path, where
        // the stop is checked.
        int st = state;
        int d = depth;
        byte[] stk = stack;
        long base = position - from; // position = base + i
        int i = from;
        loop:
        while (i < end && st != FAILED) {
            int c = b[i] & 0xff;
            switch (st) {
                case STRING -> {
                    i = plainEnd(b, i, end);
                    if (i == end) {
                        break loop;
                    }
                    c = b[i] & 0xff;
                    if (c == '"') {
                        i++;
                        if (stringIsKey) {
                            st = COLON;
                            if (i + 1 < end && b[i] == ':') { // the usual: a string or an integer
                                int value = b[i + 1];
                                if (value == '"') {
                                    i += 2;
                                    stringIsKey = false;
                                    st = STRING;
                                } else if (value >= '1' && value <= '9') {
                                    i += 2;
                                    st = INTEGER;
                                }
                            }
                            continue;
                        }
                        st = d == 0 ? END : AFTER_VALUE;
                        if (d == stopDepth) {
                            break loop;
                        }
                        if (d > 0 && i + 1 < end && b[i] == ',' && b[i + 1] == '"' && stk[d - 1] == OBJECT) {
                            i += 2; // the usual: the next name
                            stringIsKey = true;
                            st = STRING;
                        }
                        continue;
                    }
                }
                case INTEGER, FRACTION, EXPONENT_DIGITS, ZERO -> {
                    if (st != ZERO) {
                        while (c >= '0' && c <= '9') {
                            if (++i == end) {
                                break loop;
                            }
                            c = b[i] & 0xff;
                        }
                    }
                    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E')) {
                        // c ends the number and is read again as what follows it
                        st = d == 0 ? END : AFTER_VALUE;
                        if (d == stopDepth) {
                            break loop;
                        }
                        continue;
                    }
                }
                case LITERAL -> {
                    if (c == literal[literalIndex]) {
                        i++;
                        if (++literalIndex == literal.length) {
                            st = d == 0 ? END : AFTER_VALUE;
                            if (d == stopDepth) {
                                break loop;
                            }
                        }
                        continue;
                    }
                }
                case START, VALUE, ARRAY_FIRST, OBJECT_FIRST, KEY, COLON, AFTER_VALUE, END -> {
                    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                        i++;
                        continue;
                    }
                    boolean closes = false;
                    switch (st) {
                        case AFTER_VALUE -> {
                            boolean inObject = stk[d - 1] == OBJECT;
                            if (c == ',') {
                                st = inObject ? KEY : VALUE;
                                i++;
                                if (inObject && i < end && b[i] == '"') { // the usual: the next name
                                    i++;
                                    stringIsKey = true;
                                    st = STRING;
                                }
                                continue;
                            }
                            closes = c == (inObject ? '}' : ']');
                        }
                        case COLON -> {
                            if (c == ':') {
                                st = VALUE;
                                i++;
                                continue;
                            }
                        }
                        case OBJECT_FIRST, KEY -> {
                            if (c == '"') {
                                stringIsKey = true;
                                st = STRING;
                                i++;
                                continue;
                            }
                            closes = c == '}' && st == OBJECT_FIRST;
                        }
                        case START, VALUE, ARRAY_FIRST -> {
                            if (c == '"') {
                                stringIsKey = false;
                                st = STRING;
                                i++;
                                continue;
                            }
                            if (c >= '0' && c <= '9') {
                                st = c == '0' ? ZERO : INTEGER;
                                i++;
                                continue;
                            }
                            if ((c == '{' || c == '[') && d < stk.length) { // else step() grows the stack or fails
                                stk[d++] = c == '{' ? OBJECT : ARRAY;
                                st = c == '{' ? OBJECT_FIRST : ARRAY_FIRST;
                                i++;
                                continue;
                            }
                            closes = c == ']' && st == ARRAY_FIRST;
                        }
                        default -> {}
                    }
                    if (closes) {
                        i++;
                        st = --d == 0 ? END : AFTER_VALUE;
                        if (d == stopDepth) {
                            break loop;
                        }
                        continue;
                    }
                }
                default -> {}
            }
            state = st;
            depth = d;
            position = base + i;
            step(c);
            st = state;
            d = depth;
            stk = stack;
            i++;
            if ((st == AFTER_VALUE || st == END) && d == stopDepth) {
                break; // a value ends on the fast path above; this keeps the stop whatever step() does
            }
        }
        state = st;
        depth = d;
        position = base + i;
        return i;
    }

    /** Checks the bytes from the buffer's position to its limit, without moving its position. */
    public void feed(ByteBuffer buffer) {
        requireNonNull(buffer, "buffer");
        if (buffer.hasArray()) {
            feed(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
            return;
        }
        for (int i = buffer.position(), end = buffer.limit(); i < end && state != FAILED; i++) {
            step(buffer.get(i) & 0xff);
        }
    }

    /** Whether a syntax error has been seen. */
    public boolean failed() {
        return state == FAILED;
    }

    /**
     * Ends the input.
     *
     * @return whether exactly one complete JSON value, with optional whitespace around it, was fed
     */
    public boolean finish() {
        switch (state) {
            case END, FAILED -> {}
            case ZERO, INTEGER, FRACTION, EXPONENT_DIGITS -> {
                if (depth == 0) {
                    state = END;
                } else {
                    fail("unexpected end of input at byte " + position);
                }
            }
            case START -> fail((position == 0 ? "empty input" : "only whitespace") + " (expected: one JSON value)");
            default -> fail("unexpected end of input at byte " + position);
        }
        return state == END;
    }

    /** Why the input is not JSON, such as {@code unexpected '}' at byte 17}; empty when no error was found. */
    public String error() {
        return error;
    }

    /**
     * The end of the run of plain string bytes at {@code bytes[from..end)}: the index of the first
     * {@code "}, {@code \\} or control byte, or {@code end}. Eight bytes at a time (SWAR: in each word
     * the lowest byte flagged by a zero or less-than test is exact, as borrows only run upwards).
     */
    static int plainEnd(byte[] bytes, int from, int end) {
        int i = from;
        while (i + 8 <= end) {
            long w = (long) LONGS.get(bytes, i);
            long q = w ^ QUOTES;
            long b = w ^ BACKSLASHES;
            long hit = ((q - ONES) & ~q) | ((b - ONES) & ~b) | ((w - SPACES) & ~w);
            hit &= HIGHS;
            if (hit != 0) {
                return i + (Long.numberOfTrailingZeros(hit) >>> 3);
            }
            i += 8;
        }
        while (i < end) {
            int c = bytes[i] & 0xff;
            if (c == '"' || c == '\\' || c < 0x20) {
                return i;
            }
            i++;
        }
        return end;
    }

    /**
     * The end of the string with no escape, or the integer (no sign, fraction or exponent, not 0),
     * that starts at {@code bytes[from]} and ends in {@code bytes[from..end)}, or -1: the commonest
     * values, which the caller may pass whole when it expects a value (an integer ends before the
     * byte after it, which is still to be read).
     */
    static int simpleValueEnd(byte[] bytes, int from, int end) {
        int c = bytes[from];
        if (c == '"') {
            int i = plainEnd(bytes, from + 1, end);
            return i < end && bytes[i] == '"' ? i + 1 : -1;
        }
        if (c < '1' || c > '9') {
            return -1;
        }
        for (int i = from + 1; i < end; i++) {
            c = bytes[i];
            if (c < '0' || c > '9') {
                return c == '.' || c == 'e' || c == 'E' ? -1 : i;
            }
        }
        return -1; // it may go on in the next chunk
    }

    /** Checks one byte. */
    void step(int c) {
        switch (state) {
            case STRING -> string(c);
            case ESCAPE -> escape(c);
            case UNICODE -> {
                if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                    unexpected(c, "a hex digit of \\uXXXX");
                } else if (--hexLeft == 0) {
                    state = STRING;
                }
            }
            case MINUS -> {
                if (c == '0') {
                    state = ZERO;
                } else if (c >= '1' && c <= '9') {
                    state = INTEGER;
                } else {
                    unexpected(c, "a digit");
                }
            }
            case ZERO -> afterInteger(c);
            case INTEGER -> {
                if (c < '0' || c > '9') {
                    afterInteger(c);
                }
            }
            case DOT -> digitThen(c, FRACTION);
            case FRACTION -> {
                if (c == 'e' || c == 'E') {
                    state = EXPONENT;
                } else if (c < '0' || c > '9') {
                    endNumber(c);
                }
            }
            case EXPONENT -> {
                if (c == '+' || c == '-') {
                    state = EXPONENT_SIGN;
                } else {
                    digitThen(c, EXPONENT_DIGITS);
                }
            }
            case EXPONENT_SIGN -> digitThen(c, EXPONENT_DIGITS);
            case EXPONENT_DIGITS -> {
                if (c < '0' || c > '9') {
                    endNumber(c);
                }
            }
            case LITERAL -> {
                if (c != literal[literalIndex]) {
                    unexpected(c, "'" + new String(literal, java.nio.charset.StandardCharsets.US_ASCII) + "'");
                } else if (++literalIndex == literal.length) {
                    endValue();
                }
            }
            default -> structural(c);
        }
        position++;
    }

    /** Whitespace, brackets, separators and the first byte of a value. */
    private void structural(int c) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            return;
        }
        switch (state) {
            case START, VALUE -> beginValue(c);
            case ARRAY_FIRST -> {
                if (c == ']') {
                    close();
                } else {
                    beginValue(c);
                }
            }
            case OBJECT_FIRST, KEY -> {
                if (c == '"') {
                    stringIsKey = true;
                    state = STRING;
                } else if (c == '}' && state == OBJECT_FIRST) {
                    close();
                } else {
                    unexpected(c, "a string key");
                }
            }
            case COLON -> {
                if (c == ':') {
                    state = VALUE;
                } else {
                    unexpected(c, "':'");
                }
            }
            case AFTER_VALUE -> {
                byte top = stack[depth - 1];
                if (c == ',') {
                    state = top == OBJECT ? KEY : VALUE;
                } else if (c == '}' && top == OBJECT) {
                    close();
                } else if (c == ']' && top == ARRAY) {
                    close();
                } else {
                    unexpected(c, top == OBJECT ? "',' or '}'" : "',' or ']'");
                }
            }
            case END -> unexpected(c, "the end after one JSON value");
            default -> throw new IllegalStateException("state " + state);
        }
    }

    private void beginValue(int c) {
        switch (c) {
            case '{' -> open(OBJECT, OBJECT_FIRST);
            case '[' -> open(ARRAY, ARRAY_FIRST);
            case '"' -> {
                stringIsKey = false;
                state = STRING;
            }
            case '-' -> state = MINUS;
            case '0' -> state = ZERO;
            case 't' -> literal(TRUE);
            case 'f' -> literal(FALSE);
            case 'n' -> literal(NULL);
            default -> {
                if (c >= '1' && c <= '9') {
                    state = INTEGER;
                } else {
                    unexpected(c, "a JSON value");
                }
            }
        }
    }

    private void string(int c) {
        if (c == '"') {
            if (stringIsKey) {
                state = COLON;
            } else {
                endValue();
            }
        } else if (c == '\\') {
            state = ESCAPE;
        } else if (c < 0x20) {
            fail(String.format(Locale.ROOT, "control character 0x%02x in a string at byte %d", c, position));
        }
    }

    private void escape(int c) {
        switch (c) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> state = STRING;
            case 'u' -> {
                hexLeft = 4;
                state = UNICODE;
            }
            default -> unexpected(c, "an escape such as \\n or \\u00e9");
        }
    }

    private void afterInteger(int c) {
        if (c == '.') {
            state = DOT;
        } else if (c == 'e' || c == 'E') {
            state = EXPONENT;
        } else if (state == ZERO && c >= '0' && c <= '9') {
            unexpected(c, "no digit after a leading 0");
        } else {
            endNumber(c);
        }
    }

    private void digitThen(int c, int next) {
        if (c >= '0' && c <= '9') {
            state = next;
        } else {
            unexpected(c, "a digit");
        }
    }

    /** {@code c} ends a number: the number is a complete value, and {@code c} is read after it. */
    private void endNumber(int c) {
        endValue();
        structural(c);
    }

    private void literal(byte[] word) {
        literal = word;
        literalIndex = 1;
        state = LITERAL;
    }

    private void open(byte kind, int next) {
        if (depth == MAX_DEPTH) {
            fail("nesting deeper than " + MAX_DEPTH + " at byte " + position);
            return;
        }
        if (depth == stack.length) {
            stack = Arrays.copyOf(stack, Math.min(MAX_DEPTH, depth * 2));
        }
        stack[depth++] = kind;
        state = next;
    }

    private void close() {
        depth--;
        endValue();
    }

    private void endValue() {
        state = depth == 0 ? END : AFTER_VALUE;
    }

    private void unexpected(int c, String expected) {
        String shown = c >= 0x21 && c < 0x7f ? "'" + (char) c + "'" : String.format(Locale.ROOT, "byte 0x%02x", c);
        fail("unexpected " + shown + " at byte " + position + " (expected: " + expected + ")");
    }

    private void fail(String reason) {
        if (state != FAILED) {
            state = FAILED;
            error = reason;
        }
    }
}
