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
 * A plain HTTP upstream that speaks only h2c (HTTP/2 by prior knowledge), on Jetty's HTTP/2 server:
 *
 * <pre>
 *   POST /echo       the request body back, streamed under flow control
 *   GET  /trailers   "body" and the trailer x-trailer: yes
 *   any  /stall      never answered (until the upstream closes)
 * </pre>
 */
public final class H2cUpstream implements AutoCloseable {

    private final Server server;
    private final List<Callback> stalled = new CopyOnWriteArrayList<>();

    private H2cUpstream() {
        server = new Server();
        ServerConnector connector =
                new ServerConnector(server, new HTTP2CServerConnectionFactory(new HttpConfiguration()));
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
                    case "/stall" -> stalled.add(callback);
                    default -> {
                        response.setStatus(404);
                        callback.succeeded();
                    }
                }
                return true;
            }
        });
    }

    public static H2cUpstream start() {
        H2cUpstream upstream = new H2cUpstream();
        try {
            upstream.server.start();
        } catch (Exception e) {
            throw new IllegalStateException("the h2c upstream did not start", e);
        }
        return upstream;
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
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
