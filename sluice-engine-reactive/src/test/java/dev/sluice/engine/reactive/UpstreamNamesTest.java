package dev.sluice.engine.reactive;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.tck.TestGateway;
import dev.sluice.tck.WireClient;
import io.netty.resolver.HostsFileEntriesResolver;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Upstream names are resolved for every new connection (docs/ENGINE-CONTRACT.md): two servers on one
 * port, at 127.0.0.1 and 127.0.0.2, each answering with its own name and closing the connection, and
 * a name that moves from one to the other between two requests.
 */
@ExtendWith(LeakGuard.class)
class UpstreamNamesTest {

    /** Answers every request with {@code {"at":"<name>"}} and closes: the next request needs a new connection. */
    static Thread serve(ServerSocket server, String name, AtomicInteger served) {
        byte[] body = ("{\"at\":\"" + name + "\"}").getBytes(StandardCharsets.US_ASCII);
        byte[] head = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                        + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        return Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try (Socket socket = server.accept()) {
                    InputStream in = socket.getInputStream();
                    int matched = 0;
                    while (matched < 4) { // up to the head's blank line; a GET has no body
                        int c = in.read();
                        if (c < 0) {
                            break;
                        }
                        matched = c == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : (c == '\r' ? 1 : 0);
                    }
                    OutputStream out = socket.getOutputStream();
                    out.write(head);
                    out.write(body);
                    out.flush();
                    served.incrementAndGet();
                } catch (IOException e) {
                    // closed, or the gateway went away
                }
            }
        });
    }

    @Test
    void aNameWhoseAddressChangesIsFollowedByTheNextNewConnection() throws Exception {
        try (ServerSocket first = new ServerSocket();
                ServerSocket second = new ServerSocket()) {
            first.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            int port = first.getLocalPort();
            second.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), port));
            AtomicInteger servedFirst = new AtomicInteger();
            AtomicInteger servedSecond = new AtomicInteger();
            serve(first, "first", servedFirst);
            serve(second, "second", servedSecond);

            AtomicReference<InetAddress> shop = new AtomicReference<>(InetAddress.getByName("127.0.0.1"));
            HostsFileEntriesResolver hosts = (host, types) -> host.equals("shop.test") ? shop.get() : null;
            GatewayConfig config = TestGateway.builder(EngineMode.REACTIVE)
                    .upstream("shop", URI.create("http://shop.test:" + port))
                    .route("all", on("/**"), proxy("shop"))
                    .config();
            try (ReactiveGateway gw = ReactiveGateway.start(config, GatewayObserver.NONE, hosts)) {
                assertThat(WireClient.to(gw.port()).get("/a").bodyText()).isEqualTo("{\"at\":\"first\"}");
                assertThat(WireClient.to(gw.port()).get("/b").bodyText()).isEqualTo("{\"at\":\"first\"}");

                shop.set(InetAddress.getByName("127.0.0.2")); // the name moves

                assertThat(WireClient.to(gw.port()).get("/c").bodyText())
                        .as("a new connection after the move goes to the new address")
                        .isEqualTo("{\"at\":\"second\"}");
                assertThat(servedFirst).hasValue(2);
                assertThat(servedSecond).hasValue(1);
            }
        }
    }
}
