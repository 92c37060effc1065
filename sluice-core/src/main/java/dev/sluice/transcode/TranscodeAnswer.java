package dev.sluice.transcode;

import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import java.nio.charset.StandardCharsets;

/**
 * The client's side of a transcoded call: each response message as JSON (proto3 JSON mapping, {@link
 * JsonFormat}, lowerCamel names, defaults omitted, as Envoy's transcoder prints them), framed by the
 * delivery — a unary method's one message as a JSON object; a server-streaming method's as a JSON
 * array written element by element, as NDJSON ({@code Accept: application/x-ndjson}), or as SSE
 * ({@code Accept: text/event-stream}) — and a gRPC error as {@code {"code":…,"message":…}} with the
 * HTTP status {@link #httpStatus} maps it to. Each call of {@link #message} yields the bytes to write
 * and flush at once; nothing is held between messages.
 */
public final class TranscodeAnswer {

    /** How the messages of a call reach the client. */
    public enum Delivery {
        OBJECT("application/json"),
        ARRAY("application/json"),
        NDJSON("application/x-ndjson"),
        SSE("text/event-stream");

        private final String contentType;

        Delivery(String contentType) {
            this.contentType = contentType;
        }

        public String contentType() {
            return contentType;
        }
    }

    private static final JsonFormat.Printer PRINTER = JsonFormat.printer().omittingInsignificantWhitespace();

    private final MethodDescriptor method;
    private final Delivery delivery;
    private int count;

    private TranscodeAnswer(MethodDescriptor method, Delivery delivery) {
        this.method = method;
        this.delivery = delivery;
    }

    /** The answer of a call of this method to a client that sent this {@code Accept} (or null). */
    public static TranscodeAnswer of(MethodDescriptor method, String accept) {
        if (!method.isServerStreaming()) {
            return new TranscodeAnswer(method, Delivery.OBJECT);
        }
        String a = accept == null ? "" : accept.toLowerCase(java.util.Locale.ROOT);
        if (a.contains("application/x-ndjson")) {
            return new TranscodeAnswer(method, Delivery.NDJSON);
        }
        if (a.contains("text/event-stream")) {
            return new TranscodeAnswer(method, Delivery.SSE);
        }
        return new TranscodeAnswer(method, Delivery.ARRAY);
    }

    public Delivery delivery() {
        return delivery;
    }

    /** The bytes of one response message, framed for the delivery (the array's '[' with the first). */
    public byte[] message(byte[] protobuf) throws TranscodeException {
        String json;
        try {
            json = PRINTER.print(DynamicMessage.parseFrom(method.getOutputType(), protobuf));
        } catch (InvalidProtocolBufferException e) {
            throw new TranscodeException(
                    13,
                    "the upstream sent a message that is not a "
                            + method.getOutputType().getFullName());
        }
        if (delivery == Delivery.OBJECT && count > 0) {
            throw new TranscodeException(13, "the upstream sent more than one message for a unary method");
        }
        String framed = switch (delivery) {
            case OBJECT -> json;
            case ARRAY -> (count == 0 ? "[" : ",") + json;
            case NDJSON -> json + "\n";
            case SSE -> "data: " + json + "\n\n";
        };
        count++;
        return framed.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The JSON of the messages {@code chunk} of the response body completes ({@link #message} each, in
     * order), empty when it completes none; {@code frames} holds a message's beginning between chunks.
     *
     * @throws TranscodeException the upstream's answer is not the method's: a message over {@code
     *     max-message}, compressed, or not parsable (the upstream's failure: 502 before the answer began)
     */
    public byte[] messages(GrpcFrames frames, java.nio.ByteBuffer chunk) throws TranscodeException {
        java.util.List<byte[]> messages = frames.feed(chunk);
        if (messages.isEmpty()) {
            return NONE;
        }
        if (messages.size() == 1) {
            return message(messages.get(0));
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] m : messages) {
            out.writeBytes(message(m));
        }
        return out.toByteArray();
    }

    private static final byte[] NONE = new byte[0];

    /**
     * The bytes that end a call that ended with OK: the array's ']' ({@code []} when no message came);
     * for a unary call without a message, an empty JSON object.
     */
    public byte[] end() {
        String tail = switch (delivery) {
            case OBJECT -> count == 0 ? "{}" : "";
            case ARRAY -> count == 0 ? "[]" : "]";
            case NDJSON, SSE -> "";
        };
        return tail.getBytes(StandardCharsets.UTF_8);
    }

    /** Whether bytes were written already: a later error can then only cut the response short. */
    public boolean started() {
        return count > 0;
    }

    /** A gRPC error as the JSON body of the answer: {@code {"code":5,"message":"…"}}. */
    public static byte[] error(int grpcCode, String message) {
        StringBuilder out = new StringBuilder("{\"code\":").append(grpcCode).append(",\"message\":\"");
        String text = message == null ? "" : message;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append("\"}").toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The HTTP status of a gRPC status code, as Envoy's transcoder maps them: OK 200, CANCELLED 499,
     * INVALID_ARGUMENT / FAILED_PRECONDITION / OUT_OF_RANGE 400, DEADLINE_EXCEEDED 504, NOT_FOUND 404,
     * ALREADY_EXISTS / ABORTED 409, PERMISSION_DENIED 403, RESOURCE_EXHAUSTED 429, UNIMPLEMENTED 501,
     * UNAVAILABLE 503, UNAUTHENTICATED 401, anything else (UNKNOWN, INTERNAL, DATA_LOSS) 500.
     */
    public static int httpStatus(int grpcCode) {
        return switch (grpcCode) {
            case 0 -> 200;
            case 1 -> 499;
            case 3, 9, 11 -> 400;
            case 4 -> 504;
            case 5 -> 404;
            case 6, 10 -> 409;
            case 7 -> 403;
            case 8 -> 429;
            case 12 -> 501;
            case 14 -> 503;
            case 16 -> 401;
            default -> 500;
        };
    }

    /** The gRPC message header's value decoded (it is percent-encoded on the wire). */
    public static String grpcMessage(String header) {
        if (header == null) {
            return "";
        }
        String decoded = HttpTemplate.decode(header, false);
        return decoded == null ? header : decoded;
    }

    /**
     * How a call ended, from its trailers: {@code grpc-status} as a code ({@code 13}, INTERNAL, when it is
     * absent or not a number) and the message to report.
     */
    public record Ending(int code, String message) {
        public static Ending of(String grpcStatus, String grpcMessage) {
            int code;
            try {
                code = grpcStatus == null ? 13 : Integer.parseInt(grpcStatus.trim());
            } catch (NumberFormatException e) {
                code = 13;
            }
            String message =
                    grpcStatus == null ? "the upstream's response ended without grpc-status" : grpcMessage(grpcMessage);
            return new Ending(code, message);
        }

        public boolean ok() {
            return code == 0;
        }
    }
}
