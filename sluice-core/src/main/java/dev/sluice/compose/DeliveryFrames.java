package dev.sluice.compose;

import dev.sluice.config.ComposeTarget.Delivery;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The framing bytes of a composition delivered part by part ({@link Delivery#NDJSON}, {@link
 * Delivery#SSE}, {@link Delivery#MULTIPART}); {@link JsonSplice} frames the single JSON object.
 * Each part is one JSON value, {@code {"part":"a","status":200,"ms":12.034,"body":<bytes>}}, its
 * body spliced verbatim as it streams (a failed part: {@code "error":"...","body":null}); parts
 * come in the plan's relay order (arrival, or declared), a part's frame is closed ({@link #closer},
 * the plan's CLOSE step) as soon as its last byte is written, so a client reads a whole line or
 * event per part as the part completes, and a last frame carries {@code {"_meta":{...}}}. {@code ms} is the time from the
 * composition's start to the part's relay starting (a failed part: to its failure).
 *
 * <pre>
 *   ndjson     {"part":"a",...,"body":  bytes  }\n  ...  {"_meta":{...}}\n
 *   sse        event: part\nid: a\ndata: {"part":"a",...,"body":  bytes  }\n\n  ...  event: meta\ndata: {"_meta":...}\n\n
 *   multipart  \r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{"part":"a",...  }  ...  \r\n-----\r\n
 * </pre>
 *
 * <p>An NDJSON line and an event's {@code data:} must hold no raw line break: JSON allows CR and LF
 * only as whitespace between tokens (never inside a string), so for NDJSON and SSE the engine passes
 * each relayed chunk through {@link #flatten} first, which turns them into spaces in place: same
 * length, same JSON value, no byte held.
 */
public final class DeliveryFrames {

    private static final String PART_HEAD = "\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n";

    private final Delivery format;

    public DeliveryFrames(Delivery format) {
        if (format == Delivery.JSON) {
            throw new IllegalArgumentException("JSON is framed by JsonSplice");
        }
        this.format = format;
    }

    /**
     * The bytes that open a part's frame, up to its body, which follows: {@code null} for a failed
     * part ({@code error} non-null).
     */
    public byte[] open(String name, int status, long nanos, String error) {
        StringBuilder sb = new StringBuilder(96);
        switch (format) {
            case SSE -> sb.append("event: part\nid: ").append(eventId(name)).append("\ndata: ");
            case MULTIPART -> sb.append(PART_HEAD);
            default -> {}
        }
        sb.append("{\"part\":");
        JsonSplice.appendQuoted(sb, name).append(",\"status\":").append(status);
        sb.append(",\"ms\":").append(JsonSplice.millis(nanos));
        if (error != null) {
            JsonSplice.appendQuoted(sb.append(",\"error\":"), error);
        }
        return sb.append(",\"body\":").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The closing bytes: the {@code _meta} frame, the end of the stream. */
    public byte[] meta(List<PartOutcome> outcomes, long totalNanos) {
        return meta(outcomes, null, totalNanos);
    }

    /** {@link #meta(List, long)} with members added to some parts' entries (see {@link JsonSplice}). */
    byte[] meta(List<PartOutcome> outcomes, List<String> extras, long totalNanos) {
        StringBuilder sb = new StringBuilder(96 + outcomes.size() * 64);
        switch (format) {
            case SSE -> sb.append("event: meta\ndata: ");
            case MULTIPART -> sb.append(PART_HEAD);
            default -> {}
        }
        JsonSplice.appendMeta(sb.append("{\"_meta\":"), outcomes, extras, totalNanos)
                .append('}');
        sb.append(
                switch (format) {
                    case SSE -> "\n\n";
                    case MULTIPART -> "\r\n-----\r\n";
                    default -> "\n";
                });
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static final byte[] NDJSON_CLOSER = {'}', '\n'};
    private static final byte[] SSE_CLOSER = {'}', '\n', '\n'};
    private static final byte[] MULTIPART_CLOSER = {'}'};

    /** The bytes that complete a part's frame, after its body (a shared array: the caller must not change it). */
    public byte[] closer() {
        return switch (format) {
            case NDJSON -> NDJSON_CLOSER;
            case SSE -> SSE_CLOSER;
            default -> MULTIPART_CLOSER;
        };
    }

    /** Whether relayed body bytes must go through {@link #flatten} (NDJSON and SSE). */
    public boolean flattens() {
        return format == Delivery.NDJSON || format == Delivery.SSE;
    }

    /** Turns every CR and LF in {@code b[from, to)} into a space, in place (see the class comment). */
    public static void flatten(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == '\n' || b[i] == '\r') {
                b[i] = ' ';
            }
        }
    }

    /** An SSE {@code id:} line holds no line break (nor NUL, RFC: ignored ids): such characters become {@code _}. */
    static String eventId(String name) {
        return name.replace('\n', '_').replace('\r', '_').replace('\0', '_');
    }
}
