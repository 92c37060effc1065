package dev.sluice.transcode;

import dev.sluice.config.TranscodeConfig;
import java.nio.ByteBuffer;

/**
 * A composition part that calls a gRPC method ({@code compose.parts.NAME.grpc-transcode}), decided here
 * for every engine: the engine sends {@link #requestFrame} as {@code POST} {@link #grpcPath} with
 * {@link TranscodeCall#REQUEST_HEADERS} to the part's h2/h2c upstream, then feeds the response's
 * status, data chunks and trailers in and, for each {@link Step}, tells the part's plan what it says
 * and feeds its JSON bytes to the part as a plain part's body bytes are. The part's expanded target is
 * matched as a {@code GET} against the methods' {@code google.api.http} rules (or fills the configured
 * {@code method}'s message from its query), exactly as a transcoding route's request is.
 *
 * <p>The answer: a unary method's message as a JSON object; a server-streaming method's as a JSON array
 * written element by element as they arrive. A non-OK {@code grpc-status} before any byte of JSON fails
 * the part with the code's HTTP status ({@link TranscodeAnswer#httpStatus}) and {@code "gRPC status N:
 * message"}; one after the first element fails it too, cut short, as a plain part failing mid-body is.
 */
public final class TranscodedPart {

    /**
     * What to tell the part's plan, in this order.
     *
     * @param answered when not 0, the part's upstream answered with this status and a JSON body, before
     *     {@code json} ({@code CompositionPlan.answered(i, status, "application/json")})
     * @param json body bytes of the part (possibly none)
     * @param end the part's body ended after {@code json}
     * @param failedStatus the part's status when it failed ({@code error} is set)
     * @param error why the part failed, else null: stop its call
     */
    public record Step(int answered, byte[] json, boolean end, int failedStatus, String error) {
        static final Step NOTHING = new Step(0, new byte[0], false, 0, null);

        public boolean failed() {
            return error != null;
        }
    }

    /** The status a part's plan is told when its gRPC answer is JSON (its head is HTTP 200). */
    public static final int OK_STATUS = 200;

    /** The JSON content type a transcoded part's body has. */
    public static final String CONTENT_TYPE = "application/json";

    private final TranscodeCall call;
    private final TranscodeAnswer answer;
    private final GrpcFrames frames;
    private final byte[] requestFrame;
    private boolean started;
    private boolean over;

    private TranscodedPart(TranscodeCall call, TranscodeAnswer answer, int maxMessage, byte[] requestFrame) {
        this.call = call;
        this.answer = answer;
        this.frames = new GrpcFrames(maxMessage);
        this.requestFrame = requestFrame;
    }

    /**
     * The call part's expanded target ({@code /v1/books/7?x=1}, origin form) makes.
     *
     * @throws TranscodeException when no method is bound to a {@code GET} of its path (NOT_FOUND), or
     *     its query or path variables do not fit the request message (INVALID_ARGUMENT): the part fails
     *     with {@link #refusal}
     */
    public static TranscodedPart open(TranscodeConfig config, String target) throws TranscodeException {
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        String query = q < 0 ? null : target.substring(q + 1);
        TranscodeCall call = TranscodeCall.open(config, "GET", path, null);
        byte[] frame = call.requestFrame(query, new byte[0]);
        TranscodeSchema.Match match = config.method().isPresent()
                ? null
                : config.schema().match("GET", path).orElse(null);
        var method = match != null
                ? match.binding().method()
                : config.schema().method(config.method().orElseThrow()).orElseThrow();
        return new TranscodedPart(call, TranscodeAnswer.of(method, null), config.maxMessage(), frame);
    }

    /** The failure a refused {@link #open} makes of the part: its status by the code, and its error. */
    public static Step refusal(TranscodeException e) {
        return failure(e.grpcCode(), e.getMessage(), 0);
    }

    /** The gRPC path of the call: {@code /package.Service/Method}. */
    public String grpcPath() {
        return call.grpcPath();
    }

    /** The request's one length-prefixed gRPC message. */
    public byte[] requestFrame() {
        return requestFrame.clone();
    }

    /** Whether the method streams its answer (a JSON array) rather than answering one object. */
    public boolean streaming() {
        return answer.delivery() == TranscodeAnswer.Delivery.ARRAY;
    }

    /**
     * The upstream's response head: a status other than 200 fails the part (502, UNAVAILABLE); one
     * carrying {@code grpc-status} is a trailers-only answer and ends the call.
     */
    public Step head(int status, String grpcStatus, String grpcMessage) {
        if (over) {
            return Step.NOTHING;
        }
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
        if (over) {
            return Step.NOTHING;
        }
        byte[] json;
        try {
            json = answer.messages(frames, chunk);
        } catch (TranscodeException e) { // an answer message the gateway cannot relay: the upstream's failure
            return fail(e.grpcCode(), e.getMessage(), 502);
        }
        return json.length == 0 ? Step.NOTHING : bytes(json, false);
    }

    /** The response's trailers ({@code grpc-status}, {@code grpc-message}, either may be absent). */
    public Step end(String grpcStatus, String grpcMessage) {
        if (over) {
            return Step.NOTHING;
        }
        if (!frames.atBoundary()) {
            return fail(13, "the upstream's response ended inside a message", 502);
        }
        TranscodeAnswer.Ending ending = TranscodeAnswer.Ending.of(grpcStatus, grpcMessage);
        return ending.ok() ? bytes(answer.end(), true) : fail(ending.code(), ending.message(), 0);
    }

    /** The upstream's answer ended without trailers (the stream was reset or the connection lost). */
    public Step cut(String reason) {
        return over ? Step.NOTHING : fail(14, reason, 502);
    }

    private Step bytes(byte[] json, boolean end) {
        over = end;
        if (started) {
            return new Step(0, json, end, 0, null);
        }
        started = true;
        return new Step(OK_STATUS, json, end, 0, null);
    }

    private Step fail(int code, String message, int status) {
        over = true;
        return failure(code, message, status);
    }

    /** A failed part: the code's HTTP status (or {@code status} when given), and {@code gRPC status N: message}. */
    private static Step failure(int code, String message, int status) {
        String text = "gRPC status " + code + (message == null || message.isEmpty() ? "" : ": " + message);
        return new Step(0, new byte[0], false, status == 0 ? TranscodeAnswer.httpStatus(code) : status, text);
    }
}
