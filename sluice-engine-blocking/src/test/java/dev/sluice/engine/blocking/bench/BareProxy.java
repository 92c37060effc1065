package dev.sluice.engine.blocking.bench;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.engine.blocking.upstream.Http1UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.engine.blocking.upstream.UpstreamResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * NOT a gateway: a lower bound. The thinnest blocking proxy there is on the JVM, to measure what
 * a virtual-thread-per-connection server with Sluice's upstream client costs before any routing,
 * header policy, error handling or HTTP correctness: a virtual thread per client connection reads
 * a GET head (no bodies, no limits, no chunking), sends the path to one upstream and writes the
 * upstream's status 200, headers and body back in one write. It answers the question "would our
 * own server instead of Jetty make the 16 KB proxy cheap enough for half of nginx's rate?".
 *
 * <pre>
 *   BareProxy PORT UPSTREAM_URL      e.g. BareProxy 18481 http://127.0.0.1:18090
 *   wrk -t2 -c100 -d20s http://127.0.0.1:18481/16k     and read the JVM's CPU from /proc
 * </pre>
 *
 * Measured 2026-11-21 (AMD EPYC, 2 cores, JDK 25, -XX:+UseParallelGC -Xmx96m, nginx serving a
 * 16 KB file, after 10 s of warm-up, two runs): 16,048 and 15,237 req/s at 0.071 and 0.073 ms CPU
 * per request, against 0.067 for the whole gateway in {@code platform} mode on Jetty
 * ({@code sluice-lab/bench/cpu-floor.sh}): no gain worth a server of our own.
 */
public final class BareProxy {

    private BareProxy() {}

    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        UpstreamClient client = new Http1UpstreamClient(UpstreamConfig.of("upstream", URI.create(args[1])));
        String authority = client.config().authority();
        try (ServerSocket server = new ServerSocket(port, 1024, InetAddress.getLoopbackAddress())) {
            System.out.println("READY " + server.getLocalPort());
            while (true) {
                Socket socket = server.accept();
                Thread.ofVirtual().start(() -> serve(socket, client, authority));
            }
        }
    }

    private static void serve(Socket socket, UpstreamClient client, String authority) {
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            byte[] head = new byte[8192];
            byte[] body = new byte[64 * 1024];
            int filled = 0;
            while (true) {
                int end = -1;
                while (end < 0) {
                    for (int i = 3; i < filled; i++) {
                        if (head[i] == '\n' && head[i - 2] == '\n') {
                            end = i + 1;
                            break;
                        }
                    }
                    if (end < 0) {
                        int n = in.read(head, filled, head.length - filled);
                        if (n < 0) {
                            return;
                        }
                        filled += n;
                    }
                }
                int sp1 = 0;
                while (head[sp1] != ' ') {
                    sp1++;
                }
                int sp2 = sp1 + 1;
                while (head[sp2] != ' ') {
                    sp2++;
                }
                String path = new String(head, sp1 + 1, sp2 - sp1 - 1, StandardCharsets.ISO_8859_1);
                System.arraycopy(head, end, head, 0, filled - end);
                filled -= end;
                try (UpstreamResponse response =
                        client.send(new UpstreamRequest("GET", path).header("Host", authority))) {
                    StringBuilder reply = new StringBuilder("HTTP/1.1 200 OK\r\n");
                    for (int i = 0; i < response.headerCount(); i++) {
                        if (!response.headerName(i).equalsIgnoreCase("connection")) {
                            reply.append(response.headerName(i))
                                    .append(": ")
                                    .append(response.headerValue(i))
                                    .append("\r\n");
                        }
                    }
                    byte[] headBytes = reply.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
                    int length = headBytes.length;
                    System.arraycopy(headBytes, 0, body, 0, length);
                    for (int n; length < body.length && (n = response.read(body, length, body.length - length)) > 0; ) {
                        length += n;
                    }
                    out.write(body, 0, length);
                }
            }
        } catch (IOException | RuntimeException | dev.sluice.engine.blocking.upstream.UpstreamException e) {
            // a bench: the connection just ends
        }
    }
}
