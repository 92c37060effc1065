package dev.sluice.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The TCK's own instruments, checked without a gateway: if the upstream did not really break a
 * body, or the wire client could not tell an aborted body from a whole one, the contract tests
 * built on them would prove nothing.
 */
class TestUpstreamTest {

    private static TestUpstream upstream;

    @BeforeAll
    static void start() {
        upstream = TestUpstream.start();
    }

    @AfterAll
    static void stop() {
        upstream.close();
    }

    private static WireClient client() {
        return WireClient.to(upstream.port());
    }

    @Test
    void generatedBodiesAreWholeAndFramedAsAsked() {
        WireResponse fixed = client().get("/bytes/100000");
        assertThat(fixed.complete()).isTrue();
        assertThat(fixed.framing()).isEqualTo("length");
        assertThat(fixed.sha256()).isEqualTo(GeneratedBody.binary(100000).sha256());

        WireResponse chunked = client().get("/json/100000?chunked=1");
        assertThat(chunked.complete()).isTrue();
        assertThat(chunked.framing()).isEqualTo("chunked");
        assertThat(chunked.body()).containsExactly(GeneratedBody.json(100000).bytes());
        assertThat(Json.parse(chunked.body())).isInstanceOf(String.class);
    }

    @Test
    void breakingMidBodyIsSeenAsAborted() {
        WireResponse fixed = client().get("/bytes/100000?breakAt=30000");
        assertThat(fixed.status()).isEqualTo(200);
        assertThat(fixed.complete()).isFalse();
        assertThat(fixed.length()).isEqualTo(30000);

        WireResponse chunked = client().get("/bytes/100000?chunked=1&breakAt=30000");
        assertThat(chunked.framing()).isEqualTo("chunked");
        assertThat(chunked.complete()).isFalse();
        assertThat(chunked.length()).isEqualTo(30000);
    }

    @Test
    void emptyBodiesEndCleanly() {
        assertThat(client().get("/bytes/0").complete()).isTrue();
        WireResponse chunked = client().get("/bytes/0?chunked=1");
        assertThat(chunked.complete()).isTrue();
        assertThat(chunked.length()).isZero();
    }

    @Test
    void delayAndStallAreObservable() {
        WireResponse delayed = client().get("/json/10?delay=300");
        assertThat(delayed.firstBodyByteMillis()).isGreaterThanOrEqualTo(300);
        WireResponse stalled = client().get("/bytes/1000?stallAt=10&stall=300");
        assertThat(stalled.complete()).isTrue();
        assertThat(stalled.totalMillis()).isGreaterThanOrEqualTo(300);
    }

    @Test
    void slowReaderReadsEverything() {
        WireResponse slow = WireClient.to(upstream.port())
                .slowReader(64 * 1024, java.time.Duration.ofMillis(1))
                .keepLimit(0)
                .get("/bytes/2000000");
        assertThat(slow.complete()).isTrue();
        assertThat(slow.sha256()).isEqualTo(GeneratedBody.binary(2000000).sha256());
    }

    @Test
    void inspectDigestsChunkedAndFixedUploads() {
        GeneratedBody upload = GeneratedBody.binary(1_000_003);
        Map<String, Object> chunked = Json.object(
                client().send(WireRequest.of("POST", "/inspect/x?a=b").chunked(upload, 777))
                        .body());
        assertThat(chunked.get("framing")).isEqualTo("chunked");
        assertThat(chunked.get("sha256")).isEqualTo(upload.sha256());
        assertThat(chunked.get("query")).isEqualTo("a=b");
        Map<String, Object> fixed = Json.object(
                client().send(WireRequest.of("PUT", "/inspect/y").body(upload)).body());
        assertThat(fixed.get("framing")).isEqualTo("length");
        assertThat(fixed.get("length")).hasToString("1000003");
        assertThat(Json.at(fixed, "headers", "host")).isEqualTo(List.of("127.0.0.1:" + upstream.port()));
    }

    @Test
    void fixedResponsesCarryTheirHeaders() {
        String path = upstream.respond(
                503,
                "text/plain",
                "no".getBytes(StandardCharsets.UTF_8),
                Map.of("Connection", "X-Private", "X-Private", "p"));
        WireResponse response = client().get(path);
        assertThat(response.status()).isEqualTo(503);
        assertThat(response.bodyText()).isEqualTo("no");
        assertThat(response.header("x-private")).hasValue("p");
        assertThat(response.header("connection").orElse("")).containsIgnoringCase("x-private");
        WireResponse empty = client().get(upstream.respond(200, "application/json", ""));
        assertThat(empty.complete()).isTrue();
        assertThat(empty.length()).isZero();
    }

    @Test
    void rendezvousMeetsOnlyWhenAllArrive() throws Exception {
        var a = Thread.ofVirtual()
                .start(() ->
                        assertThat(client().get("/rendezvous/k1/2").bodyText()).isEqualTo("{\"met\":true}"));
        assertThat(client().get("/rendezvous/k1/2").bodyText()).isEqualTo("{\"met\":true}");
        a.join();
    }

    @Test
    void refusedPortRefusesAndCannotBeTakenByAServer() {
        int port = TestUpstream.refusedPort();
        assertThat(RefusingPort.shared().held()).isTrue();
        assertThatThrownBy(() -> WireClient.to(port).get("/"))
                .isInstanceOf(UncheckedIOException.class)
                .hasRootCauseInstanceOf(java.net.ConnectException.class);
        assertThatThrownBy(() -> new java.net.ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress()).close())
                .as("the port stays bound, so no server is given it")
                .isInstanceOf(java.net.BindException.class);
        assertThat(TestUpstream.refusedPort()).as("one port for the JVM").isEqualTo(port);
    }
}
