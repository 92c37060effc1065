package dev.sluice.transcode;

import dev.sluice.config.TranscodeConfig;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;

/**
 * One transcoded call, from the client's request to the last byte of its answer, decided here so an
 * engine only moves bytes: it sends {@link #requestFrame} as {@code POST} {@link #grpcPath} with
 * {@link #REQUEST_HEADERS} over the upstream's h2/h2c connection, then feeds the response's status,
 * data chunks and trailers in and writes each {@link Step} it gets back (status and content type with
 * the first, the bytes flushed at once). The answer's head is sent with the first message, or at the
 * end when none came, so a gRPC error before any message gets its own HTTP status; one after messages
 * were written can only cut the response short ({@link Step#abort}).
 */
public final class TranscodeCall {

    /** The request headers of every transcoded call besides {@code :method POST} and {@code :path}. */
    public static final List<String> REQUEST_HEADERS = List.of("content-type", "application/grpc", "te", "trailers");

    /** The longest {@code grpc-timeout} value: 8 digits (gRPC over HTTP/2's TimeoutValue). */
    private static final long MAX_TIMEOUT_VALUE = 99_999_999L;

    /**
     * The request headers of a call under the route's timeout ({@code timeoutNanos}, 0 or less for
     * none): {@link #REQUEST_HEADERS}, then {@code grpc-timeout} ({@link #grpcTimeout}) when there is
     * one, so the service knows the call's deadline (as grpc-java's {@code Context.getDeadline()}).
     */
    public static List<String> requestHeaders(long timeoutNanos) {
        if (timeoutNanos <= 0) {
            return REQUEST_HEADERS;
        }
        return List.of(
                REQUEST_HEADERS.get(0),
                REQUEST_HEADERS.get(1),
                REQUEST_HEADERS.get(2),
                REQUEST_HEADERS.get(3),
                "grpc-timeout",
                grpcTimeout(timeoutNanos));
    }

    /**
     * A timeout as gRPC over HTTP/2 writes it: milliseconds ({@code 1500m}) rounded up, or whole
     * seconds, minutes or hours (rounded up) when the milliseconds need more than 8 digits.
     */
    public static String grpcTimeout(long nanos) {
        long n = Math.max(1, nanos);
        long[] perUnit = {1_000_000L, 1_000_000_000L, 60_000_000_000L, 3_600_000_000_000L};
        char[] units = {'m', 'S', 'M', 'H'};
        for (int i = 0; i < units.length; i++) {
            long value = Math.ceilDiv(n, perUnit[i]);
            if (value <= MAX_TIMEOUT_VALUE) {
                return value + String.valueOf(units[i]);
            }
        }
        return MAX_TIMEOUT_VALUE + "H";
    }

    /**
     * The client's headers (lowercase) that do not go along as the call's metadata: its body's type,
     * length, framing and encodings are the JSON's, and gRPC's own are the gateway's to set (a client's
     * {@code grpc-accept-encoding} would let the upstream compress what the gateway must read).
     */
    public static final java.util.Set<String> CLIENT_HEADERS_DROPPED = java.util.Set.of(
            "content-type",
            "content-length",
            "content-encoding",
            "transfer-encoding",
            "accept",
            "accept-encoding",
            "te",
            "grpc-encoding",
            "grpc-accept-encoding",
            "grpc-timeout");

    /**
     * What to write now.
     *
     * @param status the answer's HTTP status when this step starts the answer, else 0
     * @param contentType the answer's content type when {@code status} is set
     * @param body bytes to write and flush (possibly none)
     * @param end the answer ends after these bytes
     * @param abort the answer cannot end well: cut it short (reset the stream, close the connection)
     */
    public record Step(int status, String contentType, byte[] body, boolean end, boolean abort) {
        static final Step NOTHING = new Step(0, null, new byte[0], false, false);
    }

    private final TranscodeSchema.Match match;
    private final TranscodeAnswer answer;
    private final GrpcFrames frames;
    private boolean headSent;

    private TranscodeCall(TranscodeSchema.Match match, TranscodeAnswer answer, int maxMessage) {
        this.match = match;
        this.answer = answer;
        this.frames = new GrpcFrames(maxMessage);
    }

    /**
     * The call a request makes, or a TranscodeException: NOT_FOUND (404) when no binding matches
     * (or when the route's {@code method} is a client-streaming one).
     */
    public static TranscodeCall open(TranscodeConfig config, String verb, String path, String accept)
            throws TranscodeException {
        Optional<TranscodeSchema.Match> match;
        if (config.method().isPresent()) {
            match = config.schema()
                    .method(config.method().get())
                    .filter(m -> !m.isClientStreaming())
                    .map(m -> new TranscodeSchema.Match(
                            new TranscodeSchema.Binding(verb, HttpTemplate.parse("/**"), "*", m), java.util.Map.of()));
        } else {
            match = config.schema().match(verb, path);
        }
        if (match.isEmpty()) {
            throw new TranscodeException(5, "no method is bound to " + verb + " of this path");
        }
        TranscodeSchema.Match m = match.get();
        return new TranscodeCall(m, TranscodeAnswer.of(m.binding().method(), accept), config.maxMessage());
    }

    /**
     * The whole answer to a request refused before any call ({@link #open} or {@link #requestFrame}
     * threw): its status by the code ({@link TranscodeAnswer#httpStatus}), {@code {"code":N,"message":"…"}}.
     */
    public static Step refused(TranscodeException e) {
        return new Step(
                TranscodeAnswer.httpStatus(e.grpcCode()),
                "application/json",
                TranscodeAnswer.error(e.grpcCode(), e.getMessage()),
                true,
                false);
    }

    /** The gRPC path of the call: {@code /package.Service/Method}. */
    public String grpcPath() {
        return match.binding().grpcPath();
    }

    /** The request's one gRPC message (see {@link TranscodeRequest#build}). */
    public byte[] requestFrame(String query, byte[] body) throws TranscodeException {
        return TranscodeRequest.build(match, query, body);
    }

    /**
     * The upstream's response head: a status other than 200 is a failure of the upstream (502 as
     * UNAVAILABLE); a head carrying {@code grpc-status} is a trailers-only answer and ends the call.
     */
    public Step head(int status, String grpcStatus, String grpcMessage) {
        if (status != 200) {
            return fail(14, "the upstream answered HTTP " + status + " to a gRPC call", 502);
        }
        if (grpcStatus != null) {
            return end(grpcStatus, grpcMessage);
        }
        return Step.NOTHING;
    }

    /** A chunk of the response body: the JSON of the messages it completes ({@link TranscodeAnswer#messages}). */
    public Step data(ByteBuffer chunk) {
        byte[] json;
        try {
            json = answer.messages(frames, chunk);
        } catch (TranscodeException e) { // an answer message the gateway cannot relay: the upstream's failure
            return fail(e.grpcCode(), e.getMessage(), 502);
        }
        return json.length == 0 ? Step.NOTHING : started(json, false);
    }

    /** The response's trailers ({@code grpc-status}, {@code grpc-message}, either may be absent). */
    public Step end(String grpcStatus, String grpcMessage) {
        if (!frames.atBoundary()) {
            return fail(13, "the upstream's response ended inside a message", 502);
        }
        TranscodeAnswer.Ending ending = TranscodeAnswer.Ending.of(grpcStatus, grpcMessage);
        return ending.ok() ? started(answer.end(), true) : fail(ending.code(), ending.message(), 0);
    }

    private Step started(byte[] body, boolean end) {
        if (headSent) {
            return new Step(0, null, body, end, false);
        }
        headSent = true;
        return new Step(200, answer.delivery().contentType(), body, end, false);
    }

    /** A failure: its JSON answer when nothing was sent yet (with {@code status}, or the code's), else a cut. */
    private Step fail(int code, String message, int status) {
        if (headSent) {
            return new Step(0, null, new byte[0], true, true);
        }
        headSent = true;
        return new Step(
                status == 0 ? TranscodeAnswer.httpStatus(code) : status,
                "application/json",
                TranscodeAnswer.error(code, message),
                true,
                false);
    }
}
