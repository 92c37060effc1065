package dev.sluice.engine.blocking.names;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.config.EngineMode;
import dev.sluice.tck.RawUpstream;
import dev.sluice.tck.TestGateway;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Upstream names are resolved for every new connection in the blocking engine too (the JDK's
 * resolver): two upstreams on one port at 127.0.0.1 and 127.0.0.2, each answering with its own name
 * and closing the connection, and a name that moves from one to the other between two requests. This
 * JVM resolves names from a hosts file of the test's (jdk.net.hosts.file, read on every lookup) and
 * caches nothing (sun.net.inetaddr.ttl=0): its own surefire execution, see the module's pom.
 */
class UpstreamNamesTest {

    private static String answer(String name) {
        String body = "{\"at\":\"" + name + "\"}";
        return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                + "\r\nConnection: close\r\n\r\n" + body;
    }

    @ParameterizedTest
    @EnumSource(
            value = EngineMode.class,
            names = {"VIRTUAL", "PLATFORM"})
    void aNameThatMovesIsFollowedByTheNextConnection(EngineMode mode) throws Exception {
        String file = System.getProperty("jdk.net.hosts.file");
        assumeTrue(file != null, "runs in the module's 'names' execution, whose JVM reads this hosts file");
        Path hosts = Path.of(file);
        try (RawUpstream first = RawUpstream.answering(answer("first"), InetAddress.getByName("127.0.0.1"), 0);
                RawUpstream second =
                        RawUpstream.answering(answer("second"), InetAddress.getByName("127.0.0.2"), first.port())) {
            Files.writeString(hosts, "127.0.0.1 svc.sluice.test\n");
            try (TestGateway gw = TestGateway.builder(mode)
                    .upstream("svc", URI.create("http://svc.sluice.test:" + first.port()))
                    .route("svc", on("/svc/**"), proxy("svc").stripPrefix("/svc"))
                    .start()) {
                assertThat(gw.wire().get("/svc/x").bodyText()).isEqualTo("{\"at\":\"first\"}");
                Files.writeString(hosts, "127.0.0.2 svc.sluice.test\n");
                assertThat(gw.wire().get("/svc/x").bodyText()).isEqualTo("{\"at\":\"second\"}");
            }
        }
    }
}
