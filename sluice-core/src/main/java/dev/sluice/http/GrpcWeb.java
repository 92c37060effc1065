package dev.sluice.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * gRPC-Web (grpc/grpc doc/PROTOCOL-WEB.md) translated to gRPC at the gateway: a request of {@code
 * content-type: application/grpc-web[+proto]} or {@code application/grpc-web-text[+proto]} on a route
 * whose upstream speaks h2 or h2c is sent upstream as a gRPC call, and the answer goes back as gRPC-Web.
 *
 * <ul>
 *   <li>The request head ({@link #upstreamHead}): {@code content-type} becomes {@code
 *       application/grpc[+proto]}; {@code content-length} (text mode changes the length), {@code
 *       x-grpc-web} and {@code accept} are dropped; the engines' h2 clients add {@code te: trailers}.
 *   <li>The request body: its length-prefixed messages pass as they are; in text mode decoded as it
 *       streams by {@link GrpcWebText.Decoder}.
 *   <li>The response: {@code content-type} the request's gRPC-Web type ({@link #contentType}), the
 *       upstream's messages relayed as they arrive, then its trailers as one last frame ({@link
 *       #trailerFrame}: flag {@code 0x80}, a 4-byte length, {@code name: value\r\n} lines with lowercase
 *       names); in text mode every piece base64-encoded ({@link #encode}).
 *   <li>The gateway's own refusals and failures: as for gRPC ({@link GrpcStatus}), trailers-only, with
 *       the gRPC-Web content type ({@link #answerContentType}).
 *   <li>An upstream answer cut short (reset, or lost, before its trailers): never a body that ends
 *       normally without an error status ({@link #cutShort}).
 * </ul>
 */
public final class GrpcWeb {

    private static final String PREFIX = "application/grpc-web";
    private static final java.util.Set<String> CONNECTION_SPECIFIC =
            java.util.Set.of("connection", "keep-alive", "transfer-encoding", "te", "upgrade", "content-length");

    private final boolean text;
    private final boolean proto;

    private GrpcWeb(boolean text, boolean proto) {
        this.text = text;
        this.proto = proto;
    }

    /** The gRPC-Web call a request of this content type is, or null when it is none. */
    public static GrpcWeb of(String contentType) {
        if (contentType == null || !contentType.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return null;
        }
        int semicolon = contentType.indexOf(';');
        String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon))
                .strip()
                .toLowerCase(Locale.ROOT);
        return switch (type) {
            case "application/grpc-web" -> new GrpcWeb(false, false);
            case "application/grpc-web+proto" -> new GrpcWeb(false, true);
            case "application/grpc-web-text" -> new GrpcWeb(true, false);
            case "application/grpc-web-text+proto" -> new GrpcWeb(true, true);
            default -> null;
        };
    }

    /** Whether a request of this content type is gRPC-Web. */
    public static boolean is(String contentType) {
        return of(contentType) != null;
    }

    /**
     * The content type of the gateway's own answer to a gRPC or gRPC-Web call of {@code contentType}:
     * the request's gRPC-Web type, or {@link GrpcStatus#CONTENT_TYPE}.
     */
    public static String answerContentType(String contentType) {
        GrpcWeb web = of(contentType);
        return web == null ? GrpcStatus.CONTENT_TYPE : web.contentType();
    }

    /** Whether the body is base64 ({@code application/grpc-web-text}). */
    public boolean text() {
        return text;
    }

    /** The response's content type: the request's gRPC-Web type. */
    public String contentType() {
        return PREFIX + (text ? "-text" : "") + (proto ? "+proto" : "");
    }

    /** The content type of the gRPC call sent upstream. */
    public String upstreamContentType() {
        return GrpcStatus.CONTENT_TYPE + (proto ? "+proto" : "");
    }

    /**
     * The gRPC call's head from the client's forwarded headers: {@code remove} is told each name to take
     * out ({@code content-type}, {@code content-length}, {@code x-grpc-web}, {@code accept}), then {@code
     * add} the gRPC content type.
     */
    public void upstreamHead(java.util.function.Consumer<String> remove, BiConsumer<String, String> add) {
        remove.accept("content-type");
        remove.accept("content-length");
        remove.accept("x-grpc-web");
        remove.accept("accept");
        add.accept("content-type", upstreamContentType());
    }

    /** Whether an upstream response header is replaced in the answer ({@code content-type}, {@code content-length}). */
    public static boolean replacesResponseHeader(String name) {
        return name.equalsIgnoreCase("content-type") || name.equalsIgnoreCase("content-length");
    }

    /** A request body decoder: text mode's base64, or null when the body passes as it is. */
    public GrpcWebText.Decoder requestDecoder() {
        return text ? new GrpcWebText.Decoder() : null;
    }

    /** One piece of the upstream's answer as it goes to the client (base64 in text mode). */
    public ByteBuffer encode(ByteBuffer piece) {
        return text ? GrpcWebText.encode(piece) : piece;
    }

    /**
     * The trailers as gRPC-Web's last frame: flag {@code 0x80}, the block's length (4 bytes, big-endian),
     * then {@code name: value\r\n} for each trailer, names lowercase; connection-specific fields left out.
     * Encoded for the client ({@link #encode}).
     */
    public ByteBuffer trailerFrame(Iterable<? extends Map.Entry<String, String>> trailers) {
        ByteArrayOutputStream block = new ByteArrayOutputStream(64);
        for (Map.Entry<String, String> trailer : trailers) {
            String name = trailer.getKey().toLowerCase(Locale.ROOT);
            if (name.isEmpty() || name.charAt(0) == ':' || CONNECTION_SPECIFIC.contains(name)) {
                continue;
            }
            block.writeBytes(name.getBytes(StandardCharsets.ISO_8859_1));
            block.write(':');
            block.write(' ');
            block.writeBytes(trailer.getValue().getBytes(StandardCharsets.ISO_8859_1));
            block.write('\r');
            block.write('\n');
        }
        ByteBuffer frame = ByteBuffer.allocate(5 + block.size());
        frame.put((byte) 0x80).putInt(block.size()).put(block.toByteArray()).flip();
        return encode(frame);
    }

    /** The {@code grpc-status} of the trailer frame that ends a call whose upstream answer was cut short. */
    public static final int CUT_SHORT_STATUS = GrpcStatus.UNAVAILABLE;

    /** The {@code grpc-message} of the trailer frame that ends a call whose upstream answer was cut short. */
    public static final String CUT_SHORT_MESSAGE = "upstream answer cut short before its trailers";

    /**
     * How a call ends whose upstream answer stopped before its trailers came (an RST_STREAM of any code,
     * the connection lost, a failed read): never as a body that ends normally without an error status,
     * which a gRPC-Web client would take for a whole answer or blame on the service.
     *
     * <ul>
     *   <li>Stopped between two frames ({@link Frames#between}): a last trailer frame of {@code
     *       grpc-status} {@value #CUT_SHORT_STATUS} (UNAVAILABLE, as {@link GrpcStatus#of}{@code (502)}: the
     *       gateway's answer to an upstream reset before a head) and {@code grpc-message} {@value #CUT_SHORT_MESSAGE}, encoded
     *       for the client; the response then ends normally, every whole message before it relayed.
     *   <li>Stopped inside a frame: empty, as nothing the client could read may follow half a message;
     *       the engine fails the response instead (HTTP/1.1: no last chunk, the connection closed; h2:
     *       RST_STREAM), as Envoy does with an upstream reset after the response began.
     * </ul>
     *
     * @param passed the frames of the upstream's answer relayed so far
     */
    public Optional<ByteBuffer> cutShort(Frames passed) {
        if (!passed.between()) {
            return Optional.empty();
        }
        return Optional.of(trailerFrame(List.of(
                Map.entry(GrpcStatus.STATUS_HEADER, Integer.toString(CUT_SHORT_STATUS)),
                Map.entry(GrpcStatus.MESSAGE_HEADER, GrpcStatus.message(CUT_SHORT_MESSAGE)))));
    }

    /**
     * Counts the length-prefixed frames of an upstream's gRPC answer as they pass (before any encoding),
     * to tell whether it stopped between two ({@link #cutShort}). One per call; not thread-safe.
     */
    public static final class Frames {
        private int prefixSeen; // bytes of the current frame's 5-byte prefix seen
        private long length; // its length, as far as seen
        private long payloadLeft; // bytes of its payload still to come

        /** The next piece of the answer; its position is left as it was. */
        public void pass(ByteBuffer piece) {
            int at = piece.position();
            int end = piece.limit();
            while (at < end) {
                if (payloadLeft > 0) {
                    int n = (int) Math.min(payloadLeft, end - at);
                    payloadLeft -= n;
                    at += n;
                    continue;
                }
                int b = piece.get(at++) & 0xff;
                if (prefixSeen > 0) { // the flag byte is not part of the length
                    length = length << 8 | b;
                }
                if (++prefixSeen == 5) {
                    payloadLeft = length;
                    prefixSeen = 0;
                    length = 0;
                }
            }
        }

        /** Whether what passed is whole frames (none at all included). */
        public boolean between() {
            return prefixSeen == 0 && payloadLeft == 0;
        }
    }
}
