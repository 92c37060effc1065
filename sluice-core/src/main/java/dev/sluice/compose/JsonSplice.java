package dev.sluice.compose;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * The framing bytes of a composed response. Engines write, in this order:
 *
 * <pre>
 *   key(first part)  part bytes...   key(next part)  part bytes...   ...   meta(outcomes)
 *   {"product":      {...}           ,"reviews":     [...]                 ,"_meta":{...}}
 * </pre>
 *
 * A failed part is written as {@link #NULL} after its key. The parts' own bytes are never touched.
 */
public final class JsonSplice {

    /** The JSON literal written for a part that failed. */
    public static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);

    private final byte[][] firstKeys;
    private final byte[][] laterKeys;

    /** @param names the part names, in declared order */
    public JsonSplice(List<String> names) {
        firstKeys = new byte[names.size()][];
        laterKeys = new byte[names.size()][];
        for (int i = 0; i < names.size(); i++) {
            String quoted = quote(names.get(i));
            firstKeys[i] = ("{" + quoted + ":").getBytes(StandardCharsets.UTF_8);
            laterKeys[i] = ("," + quoted + ":").getBytes(StandardCharsets.UTF_8);
        }
    }

    /**
     * The bytes that open part {@code index} (declared index).
     *
     * @param first whether it is the first part written to this response
     */
    public byte[] key(int index, boolean first) {
        return first ? firstKeys[index] : laterKeys[index];
    }

    /**
     * The closing bytes: {@code ,"_meta":{...}}}. A composition always has parts (see {@code
     * ComposeTarget}), so {@code _meta} always follows one.
     *
     * @param outcomes every part's outcome, in declared order
     * @param totalNanos the composition's duration
     */
    public static byte[] meta(List<PartOutcome> outcomes, long totalNanos) {
        return meta(outcomes, null, totalNanos);
    }

    /**
     * {@link #meta(List, long)} with members added to some parts' entries.
     *
     * @param extras by part, JSON members (with their leading comma) added to its entry, or null
     */
    static byte[] meta(List<PartOutcome> outcomes, List<String> extras, long totalNanos) {
        StringBuilder sb = new StringBuilder(64 + outcomes.size() * 64).append(",\"_meta\":");
        return appendMeta(sb, outcomes, extras, totalNanos)
                .append('}')
                .toString()
                .getBytes(StandardCharsets.UTF_8);
    }

    /** Appends the {@code _meta} object, {@code {"parts":{...},"failed":[...],"latency_ms":...}}. */
    static StringBuilder appendMeta(StringBuilder sb, List<PartOutcome> outcomes, long totalNanos) {
        return appendMeta(sb, outcomes, null, totalNanos);
    }

    static StringBuilder appendMeta(
            StringBuilder sb, List<PartOutcome> outcomes, List<String> extras, long totalNanos) {
        int index = 0;
        sb.append("{\"parts\":{");
        boolean first = true;
        for (PartOutcome o : outcomes) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append(quote(o.name())).append(":{\"status\":").append(o.status());
            sb.append(",\"latency_ms\":").append(millis(o.latencyNanos()));
            sb.append(",\"bytes\":").append(o.bytes());
            if (o.attempts() > 1) {
                sb.append(",\"attempts\":").append(o.attempts());
            }
            if (o.cached()) {
                sb.append(",\"cached\":true");
            }
            if (o.error().isPresent()) {
                sb.append(",\"error\":").append(quote(o.error().get()));
            }
            if (extras != null && extras.get(index) != null) {
                sb.append(extras.get(index));
            }
            index++;
            sb.append('}');
        }
        sb.append("},\"failed\":[");
        first = true;
        for (PartOutcome o : outcomes) {
            if (!o.isOk()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                sb.append(quote(o.name()));
            }
        }
        return sb.append("],\"latency_ms\":").append(millis(totalNanos)).append('}');
    }

    /** Milliseconds with three decimals ({@code 31.204}), without String.format on the hot path. */
    static String millis(long nanos) {
        long micros = (Math.max(0, nanos) + 500) / 1_000; // rounded, as %.3f would
        long fraction = micros % 1_000;
        StringBuilder sb = new StringBuilder(12).append(micros / 1_000).append('.');
        if (fraction < 100) {
            sb.append('0');
        }
        if (fraction < 10) {
            sb.append('0');
        }
        return sb.append(fraction).toString();
    }

    /** A JSON string literal for {@code s}. */
    public static String quote(String s) {
        return appendQuoted(new StringBuilder(s.length() + 2), s).toString();
    }

    /**
     * Appends the JSON string literal for {@code s} to {@code sb}: at once when nothing in it needs an
     * escape (request ids, paths, addresses nearly always), else character by character.
     */
    public static StringBuilder appendQuoted(StringBuilder sb, String s) {
        int n = s.length();
        int i = 0;
        while (i < n) {
            char c = s.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\') {
                break;
            }
            i++;
        }
        sb.append('"');
        if (i == n) {
            return sb.append(s).append('"');
        }
        sb.append(s, 0, i);
        for (; i < n; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"');
    }
}
