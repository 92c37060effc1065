package dev.sluice.tck;

import java.net.InetAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/**
 * A plain HTTP upstream that speaks only HTTP/2 (h2c by prior knowledge, or h2 over TLS by ALPN), on
 * Jetty's HTTP/2 server:
 *
 * <pre>
 *   POST /echo       the request body back, streamed under flow control
 *   GET  /trailers   "body" and the trailer x-trailer: yes
 *   any  /stall      never answered (until the upstream closes)
 *   GET  /flaky      503 on every other call (the first of each pair), 200 "recovered" on the next
 *   GET  /flakyheld  the same as JSON, but the 503's body ("unavailable") is held back until the next
 *                    call (the retry) arrives, and the retry is answered only once that body was written
 *   GET  /big?n      n bytes of GeneratedBody.binary, 16 KiB a write, each write waited for and counted
 *   GET  /bigjson?n  the same of GeneratedBody.json, as application/json
 *   GET  /json?n     n bytes of GeneratedBody.json (application/json), 16 KiB a write
 * </pre>
 */
public final class H2cUpstream implements AutoCloseable {

    private final Server server;
    private final List<Callback> stalled = new CopyOnWriteArrayList<>();
    private final boolean secure;
    private final java.util.concurrent.atomic.AtomicInteger flaky = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger jsonCalls = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong bigWritten = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger held = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger stallsReset =
            new java.util.concurrent.atomic.AtomicInteger();
    private volatile Runnable heldBody; // the held 503's body write, waiting for the retry

    private H2cUpstream(javax.net.ssl.SSLContext tls) {
        server = new Server();
        ServerConnector connector;
        if (tls == null) {
            connector = new ServerConnector(server, new HTTP2CServerConnectionFactory(new HttpConfiguration()));
        } else {
            org.eclipse.jetty.util.ssl.SslContextFactory.Server ssl =
                    new org.eclipse.jetty.util.ssl.SslContextFactory.Server();
            ssl.setSslContext(tls);
            org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory alpn =
                    new org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory("h2");
            alpn.setDefaultProtocol("h2");
            HttpConfiguration https = new HttpConfiguration();
            https.addCustomizer(new org.eclipse.jetty.server.SecureRequestCustomizer(false));
            connector = new ServerConnector(
                    server,
                    new org.eclipse.jetty.server.SslConnectionFactory(ssl, alpn.getProtocol()),
                    alpn,
                    new org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory(https));
        }
        this.secure = tls != null;
        connector.setHost(InetAddress.getLoopbackAddress().getHostAddress());
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                switch (Request.getPathInContext(request)) {
                    case "/echo" -> {
                        String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
                        response.getHeaders()
                                .put(HttpHeader.CONTENT_TYPE, type == null ? "application/octet-stream" : type);
                        Content.copy(request, response, callback);
                    }
                    case "/trailers" -> {
                        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
                        response.setTrailersSupplier(() -> HttpFields.build().put("x-trailer", "yes"));
                        response.write(true, ByteBuffer.wrap("body".getBytes(StandardCharsets.US_ASCII)), callback);
                    }
                    case "/stall" -> {
                        request.addFailureListener(failure -> stallsReset.incrementAndGet());
                        stalled.add(callback);
                    }
                    case "/big" -> big(request, response, callback, false);
                    case "/bigjson" -> big(request, response, callback, true);
                    case "/json" -> {
                        jsonCalls.incrementAndGet();
                        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                        byte[] body = GeneratedBody.json(
                                        Long.parseLong(request.getHttpURI().getQuery()))
                                .bytes();
                        response.write(true, ByteBuffer.wrap(body), callback);
                    }
                    case "/flaky", "/flakyjson" -> { // a 503 on every other call, the first of each pair
                        boolean first = flaky.getAndIncrement() % 2 == 0;
                        boolean json = Request.getPathInContext(request).equals("/flakyjson");
                        if (json) {
                            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                        }
                        String body = first ? "unavailable" : "recovered";
                        response.setStatus(first ? 503 : 200);
                        response.write(
                                true,
                                ByteBuffer.wrap((json ? '"' + body + '"' : body).getBytes(StandardCharsets.US_ASCII)),
                                callback);
                    }
                    case "/flakyheld" -> {
                        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                        if (held.getAndIncrement() % 2 == 0) {
                            response.setStatus(503);
                            ByteBuffer body = ByteBuffer.wrap("\"unavailable\"".getBytes(StandardCharsets.US_ASCII));
                            heldBody = () -> response.write(true, body, callback);
                            response.write(false, null, Callback.NOOP); // the head alone, flushed
                        } else {
                            Runnable late = heldBody;
                            heldBody = null;
                            ByteBuffer body = ByteBuffer.wrap("\"recovered\"".getBytes(StandardCharsets.US_ASCII));
                            if (late == null) {
                                response.write(true, body, callback);
                            } else {
                                late.run(); // the 503's body goes out before this answer's head
                                response.write(true, body, callback);
                            }
                        }
                    }
                    case "/fail" -> {
                        response.setStatus(500);
                        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                        response.write(
                                true, ByteBuffer.wrap("{\"e\":1}".getBytes(StandardCharsets.US_ASCII)), callback);
                    }
                    case "/reset" -> { // its head, then RST_STREAM
                        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                        response.write(
                                false,
                                null,
                                Callback.from(
                                        () -> callback.failed(new IllegalStateException("the stream is reset")),
                                        callback::failed));
                    }
                    default -> {
                        response.setStatus(404);
                        callback.succeeded();
                    }
                }
                return true;
            }
        });
    }

    /** How many {@code /stall} calls arrived (and are held, or were reset). */
    public int stalls() {
        return stalled.size();
    }

    /** How many {@code /stall} calls the gateway reset (or whose connection it closed) while they were held. */
    public int stallsReset() {
        return stallsReset.get();
    }

    /** How many {@code /json} calls it has answered. */
    public int jsonCalls() {
        return jsonCalls.get();
    }

    /** Bytes of {@code /big} bodies the upstream's writes have completed: what flow control let out. */
    public long bigWritten() {
        return bigWritten.get();
    }

    private void big(Request request, Response response, Callback callback, boolean json) {
        long n = Long.parseLong(request.getHttpURI().getQuery());
        GeneratedBody body = json ? GeneratedBody.json(n) : GeneratedBody.binary(n);
        if (json) {
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        }
        byte[] chunk = new byte[16 * 1024];
        try {
            for (long at = 0; at < n; ) {
                int count = (int) Math.min(chunk.length, n - at);
                body.fill(at, chunk, count);
                try (org.eclipse.jetty.util.Blocker.Callback written = org.eclipse.jetty.util.Blocker.callback()) {
                    response.write(false, ByteBuffer.wrap(chunk, 0, count), written);
                    written.block();
                }
                at += count;
                bigWritten.addAndGet(count);
            }
            response.write(true, ByteBuffer.allocate(0), callback);
        } catch (java.io.IOException e) {
            callback.failed(e);
        }
    }

    public static H2cUpstream start() {
        return start(null);
    }

    /** Over TLS with {@code tls}'s certificate, h2 the one protocol ALPN offers; clear text (h2c) for null. */
    public static H2cUpstream start(javax.net.ssl.SSLContext tls) {
        H2cUpstream upstream = new H2cUpstream(tls);
        try {
            upstream.server.start();
        } catch (Exception e) {
            throw new IllegalStateException("the h2c upstream did not start", e);
        }
        return upstream;
    }

    public URI url() {
        return URI.create((secure ? "https" : "http") + "://127.0.0.1:"
                + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
    }

    @Override
    public void close() {
        for (Callback c : stalled) {
            c.failed(new IllegalStateException("the upstream stops"));
        }
        try {
            server.stop();
        } catch (Exception ignored) {
            // stopping after the test: nothing to report
        }
    }
}
