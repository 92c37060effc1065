package dev.sluice.engine.blocking.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A STAND-IN for the demo upstreams, used by {@code client-bench.sh} only when {@code sluice.jar}
 * has not been built: three Jetty servers on 127.0.0.1 at {@code BASE}, {@code BASE+1} and {@code
 * BASE+2} answering every GET with a fixed JSON body of 16, 5 and 7 KB (the sizes of the demo's
 * products, customers and reviews) at once, with no simulated latency.
 *
 * <pre>
 *   StandInUpstreams [BASE]     (default 19081); prints READY BASE, runs until stdin closes
 * </pre>
 */
public final class StandInUpstreams {

    private static final int[] SIZES = {16 * 1024, 5 * 1024, 7 * 1024};
    private static final String[] NAMES = {"products", "customers", "reviews"};

    private StandInUpstreams() {}

    public static void main(String[] args) throws Exception {
        int base = args.length > 0 ? Integer.parseInt(args[0]) : 19081;
        QueuedThreadPool threads = new QueuedThreadPool(16, 2);
        threads.setName("stand-in-upstream");
        List<Server> servers = new ArrayList<>();
        try {
            for (int i = 0; i < SIZES.length; i++) {
                Server server = new Server(i == 0 ? threads : new QueuedThreadPool(16, 2));
                HttpConfiguration http = new HttpConfiguration();
                http.setSendServerVersion(false);
                http.setSendDateHeader(false);
                ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
                connector.setHost("127.0.0.1");
                connector.setPort(base + i);
                connector.setAcceptQueueSize(1024);
                server.addConnector(connector);
                server.setHandler(new FixedJson(json(NAMES[i], SIZES[i])));
                servers.add(server);
                server.start();
            }
            System.out.println("READY " + base);
            System.out.flush();
            while (System.in.read(new byte[256]) >= 0) {
                // input is ignored; its end is the stop signal
            }
        } finally {
            for (Server server : servers) {
                server.stop();
            }
        }
    }

    /** A JSON object of exactly {@code size} bytes. */
    static byte[] json(String name, int size) {
        String head = "{\"service\":\"" + name + "\",\"stand_in\":true,\"pad\":\"";
        return (head + "x".repeat(size - head.length() - 2) + "\"}").getBytes(StandardCharsets.US_ASCII);
    }

    /** Answers every request with the same body, without blocking. */
    private static final class FixedJson extends Handler.Abstract.NonBlocking {
        private final ByteBuffer body;

        FixedJson(byte[] body) {
            this.body = ByteBuffer.wrap(body).asReadOnlyBuffer();
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws IOException {
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.remaining());
            response.write(true, body.slice(), callback);
            return true;
        }
    }
}
