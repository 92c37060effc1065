package dev.sluice.tck;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;

/**
 * A real WebSocket upstream: Jetty's WebSocket server on {@code 127.0.0.1} and a free port.
 *
 * <pre>
 *   /ws/**       an echo: every text or binary message comes back whole; the text "close" makes it
 *                close the session itself (status 4000, reason "bye")
 *   anything else, or a request that asks no upgrade: 403 with the text body "no websocket here"
 * </pre>
 *
 * Every upgrade it accepts is recorded ({@link #upgrades}), and every session's end ({@link #closes}).
 */
public final class WebSocketUpstream implements AutoCloseable {

    static final String REFUSAL = "no websocket here";

    /** What an upgrade request looked like when it arrived: its path and query, its headers. */
    record Upgrade(String pathQuery, Map<String, List<String>> headers) {}

    /** How a session ended, as the upstream saw it: the session's path, the close status and reason. */
    record Close(String path, int status, String reason) {}

    private final Server server;
    private final BlockingQueue<Upgrade> upgrades = new LinkedBlockingQueue<>();
    private final BlockingQueue<Close> closes = new LinkedBlockingQueue<>();

    private WebSocketUpstream() throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        WebSocketUpgradeHandler upgrade = WebSocketUpgradeHandler.from(server, container -> {
            container.setMaxTextMessageSize(8L << 20);
            container.setMaxBinaryMessageSize(8L << 20);
            container.setIdleTimeout(Duration.ofMinutes(5)); // only the gateway's timeout ends a silent tunnel
            container.addMapping("/ws/*", (request, response, callback) -> {
                Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
                request.getHeaders()
                        .forEach(field -> headers.computeIfAbsent(field.getName(), n -> new java.util.ArrayList<>())
                                .add(field.getValue()));
                upgrades.add(new Upgrade(request.getHttpURI().getPathQuery(), headers));
                return new Echo(request.getHttpURI().getPath(), closes);
            });
        });
        upgrade.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                response.setStatus(403);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
                response.write(true, ByteBuffer.wrap(REFUSAL.getBytes(StandardCharsets.UTF_8)), callback);
                return true;
            }
        });
        server.setHandler(upgrade);
        server.start();
    }

    static WebSocketUpstream start() {
        try {
            return new WebSocketUpstream();
        } catch (Exception e) {
            throw new IllegalStateException("websocket upstream: did not start", e);
        }
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
    }

    BlockingQueue<Upgrade> upgrades() {
        return upgrades;
    }

    BlockingQueue<Close> closes() {
        return closes;
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("websocket upstream: did not stop", e);
        }
    }

    /** The echo endpoint: one per session. */
    public static final class Echo implements Session.Listener.AutoDemanding {
        private final String path;
        private final BlockingQueue<Close> closes;
        private Session session;

        Echo(String path, BlockingQueue<Close> closes) {
            this.path = path;
            this.closes = closes;
        }

        @Override
        public void onWebSocketOpen(Session session) {
            this.session = session;
        }

        @Override
        public void onWebSocketText(String message) {
            if (message.equals("close")) {
                session.close(4000, "bye", org.eclipse.jetty.websocket.api.Callback.NOOP);
            } else {
                session.sendText(message, org.eclipse.jetty.websocket.api.Callback.NOOP);
            }
        }

        @Override
        public void onWebSocketBinary(ByteBuffer payload, org.eclipse.jetty.websocket.api.Callback callback) {
            session.sendBinary(payload, callback);
        }

        @Override
        public void onWebSocketClose(int statusCode, String reason) {
            closes.add(new Close(path, statusCode, reason));
        }
    }
}
