package dev.sluice.demo;

import dev.sluice.http.ErrorBody;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** Writes a whole JSON body with its Content-Length, without blocking. */
final class JsonReply {

    private static final HttpField CONTENT_TYPE = new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "application/json");

    private JsonReply() {}

    /** Sends {@code body} (not consumed: a slice of it is written). */
    static void send(Response response, Callback callback, int status, ByteBuffer body) {
        response.setStatus(status);
        response.getHeaders().put(CONTENT_TYPE);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.remaining());
        response.write(true, body.slice(), callback);
    }

    static void send(Response response, Callback callback, int status, String json) {
        send(response, callback, status, ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8)));
    }

    /** Sends the gateway's error shape, {@code {"status":..,"error":..,"message":..}}. */
    static void error(Response response, Callback callback, int status, String error, String message) {
        send(response, callback, status, ByteBuffer.wrap(ErrorBody.of(status, error, message)));
    }

    /** A read-only direct buffer holding {@code json}, for answers built once and sent many times. */
    static ByteBuffer prebuilt(byte[] json) {
        return ByteBuffer.allocateDirect(json.length).put(json).flip().asReadOnlyBuffer();
    }

    /** {@code "virtual"} or {@code "platform"}: the kind of the calling thread. */
    static String threadKind() {
        return Thread.currentThread().isVirtual() ? "virtual" : "platform";
    }
}
