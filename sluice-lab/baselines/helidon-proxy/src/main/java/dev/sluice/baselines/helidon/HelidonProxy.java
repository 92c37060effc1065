package dev.sluice.baselines.helidon;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.webclient.api.HttpClientResponse;
import io.helidon.webclient.http1.Http1Client;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;

/**
 * The thinnest GET proxy on Helidon 4: its WebServer (a virtual thread per connection, blocking
 * sockets) and its HTTP/1.1 WebClient (pooled keep-alive connections). {@code GET /**} fetches the
 * same path and query from one upstream and streams back the status, the content type and length,
 * and the body; nothing else is copied. The reference the {@code virtual} engine's Jetty is measured
 * against (issue 33, goal 1; sluice-lab/bench/helidon-ab.sh).
 *
 * <p>usage: {@code java -jar helidon-proxy.jar UPSTREAM_URL [PORT]} (PORT 0, the default, takes a free
 * one); prints {@code READY <port>} once it listens on 127.0.0.1.
 */
public final class HelidonProxy {
    private HelidonProxy() {}

    public static void main(String[] args) {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: helidon-proxy UPSTREAM_URL [PORT]");
            System.exit(2);
        }
        URI upstream = URI.create(args[0]);
        int port = args.length == 2 ? Integer.parseInt(args[1]) : 0;
        // TCP_NODELAY on both sides, as Jetty and BareProxy have it: Helidon's default is off, and a
        // head and a body written apart then wait for the peer's delayed ACK (45 ms a request at -c100).
        Http1Client client = Http1Client.builder()
                .baseUri(upstream)
                .socketOptions(o -> o.tcpNoDelay(true))
                .connectionCacheSize(256)
                .build();
        WebServer server =
                WebServer.builder()
                        .host("127.0.0.1")
                        .port(port)
                        .connectionOptions(o -> o.tcpNoDelay(true))
                        .routing(r -> r.get("/*", (req, res) -> proxy(client, req, res)))
                        .build()
                        .start();
        System.out.println("READY " + server.port());
        System.out.flush();
    }

    private static void proxy(Http1Client client, ServerRequest req, ServerResponse res)
            throws Exception {
        String query = req.query().rawValue();
        String target = req.path().rawPath() + (query.isEmpty() ? "" : "?" + query);
        try (HttpClientResponse up = client.get(target).request()) {
            res.status(up.status());
            up.headers().contentType().ifPresent(ct -> res.headers().contentType(ct));
            if (up.headers().contains(HeaderNames.CONTENT_LENGTH)) {
                String length = up.headers().get(HeaderNames.CONTENT_LENGTH).get();
                res.headers().set(HeaderValues.create(HeaderNames.CONTENT_LENGTH, length));
            }
            try (InputStream in = up.inputStream();
                    OutputStream out = res.outputStream()) {
                in.transferTo(out);
            }
        }
    }
}
