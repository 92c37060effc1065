package dev.sluice.lab;

import dev.sluice.lab.compose.DocRoutes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/**
 * The lab's own upstream for seed 002's sweep: {@code GET /bytes/N} answers a JSON document of exactly
 * N bytes (16 <= N <= 10 MiB) with a Content-Length; the compose scenario's {@code /doc/N},
 * {@code /reviews} and {@code /products/{id}} are {@link DocRoutes}. Runs as its own process
 * ({@code sluice-lab sizes-upstream --port N}) so it can be pinned beside the load generator.
 */
public final class SizesUpstream {

    static final int MIN = 16;
    static final int MAX = 10 << 20;

    private final ConcurrentHashMap<Integer, ByteBuffer> bodies = new ConcurrentHashMap<>();
    private final DocRoutes docs = new DocRoutes();

    private SizesUpstream() {}

    /** {@code {"data":"xxxx...x"}} of exactly {@code n} bytes. */
    static byte[] body(int n) {
        if (n < MIN || n > MAX) {
            throw new IllegalArgumentException("n: " + n + " (expected: " + MIN + ".." + MAX + ")");
        }
        byte[] b = new byte[n];
        byte[] head = "{\"data\":\"".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, b, 0, head.length);
        Arrays.fill(b, head.length, n - 2, (byte) 'x');
        b[n - 2] = '"';
        b[n - 1] = '}';
        return b;
    }

    /** Starts the server on {@code 127.0.0.1:port}; returns it started. */
    public static Server start(int port) throws Exception {
        SizesUpstream upstream = new SizesUpstream();
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        // as the demo upstreams: 256 users open as many upstream connections at once, and the JDK's
        // backlog of 50 dropped SYNs whose 1 s retransmit met the gateway's 1 s connect timeout (504s)
        connector.setAcceptQueueSize(1024);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                return upstream.serve(request, response, callback);
            }
        });
        server.start();
        return server;
    }

    private boolean serve(Request request, Response response, Callback callback) {
        if (docs.serve(request, response, callback)) {
            return true;
        }
        String path = Request.getPathInContext(request);
        if (!path.startsWith("/bytes/")) {
            return false;
        }
        int n;
        try {
            n = Integer.parseInt(path.substring("/bytes/".length()));
        } catch (NumberFormatException e) {
            n = -1;
        }
        if (n < MIN || n > MAX) {
            Response.writeError(
                    request,
                    response,
                    callback,
                    400,
                    "size: '" + path.substring(7) + "' (expected: " + MIN + ".." + MAX + ")");
            return true;
        }
        ByteBuffer body =
                bodies.computeIfAbsent(n, k -> ByteBuffer.wrap(body(k)).asReadOnlyBuffer());
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, n);
        response.write(true, body.slice(), callback);
        return true;
    }

    /** {@code sizes-upstream --port N}: runs until killed. */
    static int main(java.util.List<String> args) throws Exception {
        int port = 0;
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).equals("--port") && i + 1 < args.size()) {
                port = Integer.parseInt(args.get(++i));
            }
        }
        Server server = start(port);
        int actual = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        System.out.println("sizes upstream started: http://127.0.0.1:" + actual + "/bytes/N");
        System.out.flush();
        server.join();
        return 0;
    }
}
