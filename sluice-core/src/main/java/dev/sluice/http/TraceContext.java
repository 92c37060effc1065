package dev.sluice.http;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The W3C Trace Context (<a href="https://www.w3.org/TR/trace-context/">trace-context</a>) every
 * upstream request of one exchange carries: the gateway is a span of its own in the client's trace.
 * A valid client {@code traceparent} keeps its trace id and flags and gets the gateway's new span id
 * as its parent id, its {@code tracestate} passing on unchanged; a missing or invalid one (not
 * version {@code 00}, wrong lengths, not lower-case hex, an all-zero id) starts a new trace, sampled
 * only when the gateway records it (it exports spans), and the client's {@code tracestate} is dropped
 * with it (the specification's rule: it belongs to the trace it came with).
 *
 * @param traceparent what the upstream requests carry, such as {@code
 *     00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01}
 * @param tracestate what they carry as {@code tracestate}, or null for none
 * @param parentId the client's span id (the gateway span's parent), or empty when the trace is new
 */
public record TraceContext(String traceparent, String tracestate, String parentId) {

    public static final String TRACEPARENT = "traceparent";
    public static final String TRACESTATE = "tracestate";

    /** {@code 00-} 32 hex {@code -} 16 hex {@code -} 2 hex. */
    private static final int LENGTH = 55;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** {@link #of(String, String, boolean)} for a gateway that records no trace. */
    public static TraceContext of(String traceparent, String tracestate) {
        return of(traceparent, tracestate, false);
    }

    /**
     * The context of an exchange whose client sent {@code traceparent} and {@code tracestate} (either
     * may be null).
     *
     * @param recorded whether the gateway records a trace it begins: its flags are then {@code 01}
     */
    public static TraceContext of(String traceparent, String tracestate, boolean recorded) {
        char[] out = new char[LENGTH];
        if (isValid(traceparent)) {
            traceparent.getChars(0, 36, out, 0); // version, trace id, dash
            spanId(out, 36);
            out[52] = '-';
            out[53] = traceparent.charAt(53);
            out[54] = traceparent.charAt(54);
            return new TraceContext(new String(out), tracestate, traceparent.substring(36, 52));
        }
        out[0] = '0';
        out[1] = '0';
        out[2] = '-';
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high;
        long low;
        do {
            high = random.nextLong();
            low = random.nextLong();
        } while (high == 0 && low == 0);
        hex(high, out, 3);
        hex(low, out, 19);
        out[35] = '-';
        spanId(out, 36);
        out[52] = '-';
        out[53] = '0';
        out[54] = recorded ? '1' : '0';
        return new TraceContext(new String(out), null, "");
    }

    /** The trace's id: 32 lower-case hex digits. */
    public String traceId() {
        return traceparent.substring(3, 35);
    }

    /** Whether the client's flags say it records this trace (bit 0, {@code sampled}). */
    public boolean sampled() {
        return (Character.digit(traceparent.charAt(54), 16) & 1) != 0;
    }

    /** The gateway's span id: 16 lower-case hex digits. */
    public String spanId() {
        return traceparent.substring(36, 52);
    }

    /**
     * Whether {@code traceparent} is a valid version-{@code 00} header: {@code 00-}, a 32-digit trace
     * id, {@code -}, a 16-digit parent id, {@code -}, 2-digit flags, all lower-case hex, neither id all
     * zeros.
     */
    public static boolean isValid(String traceparent) {
        if (traceparent == null
                || traceparent.length() != LENGTH
                || traceparent.charAt(0) != '0'
                || traceparent.charAt(1) != '0'
                || traceparent.charAt(2) != '-'
                || traceparent.charAt(35) != '-'
                || traceparent.charAt(52) != '-') {
            return false;
        }
        return isHex(traceparent, 3, 35) && isHex(traceparent, 36, 52) && isHex(traceparent, 53, 55);
    }

    /** Lower-case hex from {@code from} to {@code to}, not all zeros (for the flags: any value). */
    private static boolean isHex(String s, int from, int to) {
        boolean nonZero = to - from == 2;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
            nonZero |= c != '0';
        }
        return nonZero;
    }

    private static void spanId(char[] out, int at) {
        long span;
        do {
            span = ThreadLocalRandom.current().nextLong();
        } while (span == 0);
        hex(span, out, at);
    }

    private static void hex(long value, char[] out, int at) {
        for (int i = 15; i >= 0; i--) {
            out[at + i] = HEX[(int) value & 0xf];
            value >>>= 4;
        }
    }
}
