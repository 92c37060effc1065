package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.TlsConfig;
import dev.sluice.config.TlsConfig.CertificateFiles;
import dev.sluice.tck.TestCertificates.Issued;
import dev.sluice.tck.TestCertificates.KeyType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on the listener ({@code server.tls}) in every engine: a CA and certificates made in the test,
 * real clients (the JDK's HttpClient, raw {@code SSLSocket}s, curl when installed) on loopback.
 * Certificates are chosen by server name (SNI), client certificates checked (mTLS), plain HTTP to the
 * TLS port refused, and a certificate rotated while a client keeps making requests.
 */
public abstract class TlsContract extends ContractFixture {

    @TempDir
    Path dir;

    private final TestCertificates ca = TestCertificates.authority("sluice test CA");

    private CertificateFiles files(Issued issued, String name) {
        return new CertificateFiles(
                issued.writeCertificate(dir.resolve(name + ".pem")), issued.writeKey(dir.resolve(name + "-key.pem")));
    }

    private TestGateway.Builder tlsGateway(TlsConfig tls) {
        return gateway().tls(tls).route("all", on("/**"), proxy(APP));
    }

    @Test
    void aJdkClientTrustingTheTestCaIsAnsweredOverTls() throws Exception {
        Issued server = ca.server(KeyType.EC, "gateway.test");
        try (TestGateway gw = tlsGateway(TlsConfig.of(files(server, "server"))).start()) {
            HttpResponse<byte[]> response = https(ca.clientContext(Optional.empty()), gw, "/inspect/over-tls");
            assertThat(headerValues(inspected(response), "x-forwarded-proto"))
                    .as("the upstream hears the client came over https")
                    .containsExactly("https");
            assertThat(response.sslSession()).isPresent();
            assertThat(serial(response.sslSession().get().getPeerCertificates()[0]))
                    .isEqualTo(server.serial());
            assertThat(response.sslSession().get().getProtocol()).isEqualTo("TLSv1.3");

            SSLParameters tls12 = new SSLParameters();
            tls12.setProtocols(new String[] {"TLSv1.2"});
            Exchange older = exchange(ca.clientContext(Optional.empty()), gw.port(), tls12, "/json/2");
            assertThat(older.head()).startsWith("HTTP/1.1 200");
            assertThat(older.protocol()).isEqualTo("TLSv1.2");
            assertThat(older.cipherSuite()).as("forward-secret AEAD only").startsWith("TLS_ECDHE_ECDSA_WITH_");
        }
    }

    @Test
    void theServerNameAClientSendsChoosesTheCertificate() throws Exception {
        Issued fallback = ca.server(KeyType.RSA, "default.test");
        Issued api = ca.server(KeyType.EC, "api.test");
        Issued wildcard = ca.server(KeyType.EC, "*.shop.test");
        TlsConfig tls = new TlsConfig(
                files(fallback, "default"),
                List.of(files(api, "api"), files(wildcard, "shop")),
                TlsConfig.ClientAuth.NONE,
                Optional.empty(),
                TlsConfig.DEFAULT_PROTOCOLS);
        try (TestGateway gw = tlsGateway(tls).start()) {
            // a new client context each time: a resumed session would show the certificate it began with
            assertThat(serial(exchange(trusting(), gw.port(), sni("api.test"), "/json/2")
                            .peer()))
                    .isEqualTo(api.serial());
            assertThat(serial(exchange(trusting(), gw.port(), sni("www.shop.test"), "/json/2")
                            .peer()))
                    .isEqualTo(wildcard.serial());
            assertThat(serial(exchange(trusting(), gw.port(), sni("other.test"), "/json/2")
                            .peer()))
                    .as("a name no certificate covers gets the default one")
                    .isEqualTo(fallback.serial());
            assertThat(serial(exchange(trusting(), gw.port(), new SSLParameters(), "/json/2")
                            .peer()))
                    .as("no server name: the default one")
                    .isEqualTo(fallback.serial());

            Path curl = Path.of("/usr/bin/curl");
            Assumptions.assumeTrue(Files.isExecutable(curl), "curl is not installed: the JDK clients above ran");
            Path caFile = ca.writeCertificate(dir.resolve("ca.pem"));
            for (String name : List.of("api.test", "www.shop.test", "default.test")) {
                Process p = new ProcessBuilder(
                                curl.toString(),
                                "-sS",
                                "--max-time",
                                "20",
                                "--cacert",
                                caFile.toString(),
                                "--resolve",
                                name + ":" + gw.port() + ":127.0.0.1",
                                "-o",
                                "/dev/null",
                                "-w",
                                "%{http_code}",
                                "https://" + name + ":" + gw.port() + "/json/2")
                        .redirectErrorStream(true)
                        .start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(out)
                        .as("curl verifies %s against the certificate its server name chose ", name)
                        .isEqualTo("200");
            }
        }
    }

    @Test
    void requiredClientCertificatesRefuseClientsWithoutOne() throws Exception {
        TestCertificates clients = TestCertificates.authority("sluice client CA");
        Path clientCa = clients.writeCertificate(dir.resolve("clients.pem"));
        TlsConfig tls = new TlsConfig(
                files(ca.server(KeyType.EC, "gateway.test"), "server"),
                List.of(),
                TlsConfig.ClientAuth.REQUIRE,
                Optional.of(clientCa),
                TlsConfig.DEFAULT_PROTOCOLS);
        try (TestGateway gw = tlsGateway(tls).start()) {
            String run = Long.toString(System.nanoTime(), 36);
            assertThat(refused(ca.clientContext(Optional.empty()), gw.port(), "/json/2?tag=anonymous" + run))
                    .as("no client certificate: no answer")
                    .isTrue();
            Issued stranger = TestCertificates.authority("another CA").client("stranger");
            assertThat(refused(ca.clientContext(Optional.of(stranger)), gw.port(), "/json/2?tag=stranger" + run))
                    .as("a certificate another CA signed: no answer")
                    .isTrue();
            assertThat(upstream.started("anonymous" + run)).isFalse();
            assertThat(upstream.started("stranger" + run)).isFalse();

            HttpResponse<byte[]> admitted =
                    https(ca.clientContext(Optional.of(clients.client("alice"))), gw, "/json/2");
            assertThat(admitted.statusCode()).isEqualTo(200);
        }
    }

    @Test
    void optionalClientCertificatesLetClientsWithoutOneIn() throws Exception {
        TestCertificates clients = TestCertificates.authority("sluice client CA");
        TlsConfig tls = new TlsConfig(
                files(ca.server(KeyType.EC, "gateway.test"), "server"),
                List.of(),
                TlsConfig.ClientAuth.OPTIONAL,
                Optional.of(clients.writeCertificate(dir.resolve("clients.pem"))),
                TlsConfig.DEFAULT_PROTOCOLS);
        try (TestGateway gw = tlsGateway(tls).start()) {
            assertThat(https(ca.clientContext(Optional.empty()), gw, "/json/2").statusCode())
                    .isEqualTo(200);
            assertThat(https(ca.clientContext(Optional.of(clients.client("bob"))), gw, "/json/2")
                            .statusCode())
                    .isEqualTo(200);
            Issued stranger = TestCertificates.authority("another CA").client("stranger");
            assertThat(refused(ca.clientContext(Optional.of(stranger)), gw.port(), "/json/2"))
                    .as("a certificate the client CA did not sign is refused even when optional")
                    .isTrue();
        }
    }

    @Test
    void plainHttpToTheTlsPortGets400AndACloseAndLogsNeitherItsTokenNorAStackTrace() throws Exception {
        AtomicInteger counted = new AtomicInteger();
        dev.sluice.observe.GatewayObserver observer = new dev.sluice.observe.GatewayObserver() {
            @Override
            public void clientProtocolError(dev.sluice.observe.ClientProtocolError kind) {
                if (kind == dev.sluice.observe.ClientProtocolError.PLAIN_HTTP_ON_TLS) {
                    counted.incrementAndGet();
                }
            }
        };
        try (LogCapture log = LogCapture.start();
                TestGateway gw = tlsGateway(TlsConfig.of(files(ca.server(KeyType.EC, "gateway.test"), "server")))
                        .observer(observer)
                        .start()) {
            for (int i = 0; i < 5; i++) {
                try (Socket plain = new Socket()) {
                    plain.connect(new InetSocketAddress("127.0.0.1", gw.port()), 5_000);
                    plain.setSoTimeout(20_000);
                    plain.getOutputStream()
                            .write(("GET /json/2 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                            + "Authorization: Bearer sekrit-token-4711\r\n\r\n")
                                    .getBytes(StandardCharsets.US_ASCII));
                    String answer = new String(plain.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                    assertThat(answer).as("a 400 in plain HTTP, then the close").startsWith("HTTP/1.1 400");
                    assertThat(answer).contains("plain_http_on_tls_port");
                }
            }
            assertThat(https(ca.clientContext(Optional.empty()), gw, "/json/2").statusCode())
                    .isEqualTo(200);
            awaitCount(counted, 5); // counted as the connection ends, which may be after the client saw its close
            assertThat(counted.get()).as("every one counted").isEqualTo(5);
            for (var event : log.events()) {
                assertThat(event.getFormattedMessage()).doesNotContain("sekrit").doesNotContain("736b72");
                assertThat(event.getThrowableProxy())
                        .as("a stack trace: " + event.getFormattedMessage())
                        .isNull();
            }
            assertThat(log.eventsContaining("plain_http_on_tls"))
                    .as("one line for the kind, however many")
                    .hasSizeLessThanOrEqualTo(1);
        }
    }

    @Test
    void aClientInitiatedRenegotiationOnTls12IsRefused() throws Exception {
        AtomicInteger refusals = new AtomicInteger();
        List<dev.sluice.observe.ClientProtocolError> counted = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.sluice.observe.GatewayObserver observer = new dev.sluice.observe.GatewayObserver() {
            @Override
            public void clientProtocolError(dev.sluice.observe.ClientProtocolError kind) {
                counted.add(kind);
                if (kind == dev.sluice.observe.ClientProtocolError.TLS_RENEGOTIATION) {
                    refusals.incrementAndGet();
                }
            }
        };
        try (LogCapture log = LogCapture.start();
                TestGateway gw = tlsGateway(TlsConfig.of(files(ca.server(KeyType.EC, "gateway.test"), "server")))
                        .observer(observer)
                        .start();
                SSLSocket socket = (SSLSocket) trusting().getSocketFactory().createSocket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", gw.port()), 5_000);
            socket.setSoTimeout(10_000);
            socket.setEnabledProtocols(new String[] {"TLSv1.2"});
            socket.startHandshake();
            String answer;
            try {
                socket.startHandshake(); // a renegotiation
                OutputStream out = socket.getOutputStream();
                out.write(("GET /json/2 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                answer = new String(readAll(socket.getInputStream()), StandardCharsets.ISO_8859_1);
            } catch (IOException refused) {
                answer = "";
            }
            assertThat(answer).as("no answer after a renegotiation").doesNotStartWith("HTTP/");
            // refused by the gateway itself, not merely ended by the client: Jetty alone closed such a
            // connection gracefully, which a scanner reads as a renegotiation that went through
            awaitCount(refusals, 1);
            // one connection's refusal, after its handshake went through: one error, of that kind
            // (virtual and platform counted it a second time, as a failed handshake); a request on a
            // new connection is served, after which every count of the refused one is in
            assertThat(https(ca.clientContext(Optional.empty()), gw, "/json/2").statusCode())
                    .isEqualTo(200);
            assertThat(counted)
                    .as("the client protocol errors counted")
                    .containsExactly(dev.sluice.observe.ClientProtocolError.TLS_RENEGOTIATION);
            assertThat(log.eventsContaining("tls_renegotiation")).hasSizeLessThanOrEqualTo(1);
            for (var event : log.events()) {
                assertThat(event.getThrowableProxy())
                        .as("a stack trace: " + event.getFormattedMessage())
                        .isNull();
            }
        }
    }

    @Test
    void aRotatedCertificateServesNewHandshakesWhileRequestsGoOnUnbroken() throws Exception {
        Issued first = ca.server(KeyType.EC, "gateway.test");
        Issued second = ca.server(KeyType.EC, "gateway.test");
        CertificateFiles paths = files(first, "rotating");
        try (TestGateway gw = tlsGateway(TlsConfig.of(paths)).start()) {
            SSLContext keptAliveContext = ca.clientContext(Optional.empty());
            HttpClient keptAlive = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .sslContext(keptAliveContext)
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            try (keptAlive) {
                assertThat(peerSerial(send(keptAlive, gw, "/json/2"))).isEqualTo(first.serial());
                AtomicBoolean stop = new AtomicBoolean();
                AtomicInteger answered = new AtomicInteger();
                List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
                Thread load = Thread.ofVirtual().start(() -> {
                    while (!stop.get()) {
                        try { // one request on the kept-alive connection, one on a new connection
                            HttpResponse<byte[]> r = send(keptAlive, gw, "/json/64");
                            Exchange fresh = exchange(trusting(), gw.port(), new SSLParameters(), "/json/64");
                            if (r.statusCode() == 200 && fresh.head().startsWith("HTTP/1.1 200")) {
                                answered.addAndGet(2);
                            } else {
                                failures.add(r.statusCode() + " / " + fresh.head());
                            }
                        } catch (RuntimeException e) {
                            failures.add(e.toString());
                        }
                    }
                });
                awaitCount(answered, 10);
                second.writeCertificate(paths.certificate());
                second.writeKey(paths.key());
                AtomicReference<String> seen = new AtomicReference<>();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!second.serial().equals(seen.get()) && System.nanoTime() < deadline) {
                    seen.set(serial(exchange(trusting(), gw.port(), new SSLParameters(), "/json/2")
                            .peer()));
                }
                assertThat(seen.get())
                        .as("a new handshake gets the new certificate")
                        .isEqualTo(second.serial());
                int before = answered.get();
                awaitCount(answered, before + 10);
                stop.set(true);
                load.join(30_000);
                assertThat(failures).as("no request failed across the rotation").isEmpty();
                assertThat(peerSerial(send(keptAlive, gw, "/json/2")))
                        .as("the connection opened before the rotation was never dropped")
                        .isEqualTo(first.serial());
            }
        }
    }

    // ---- clients

    /** Waits until {@code count} reaches {@code at least}, up to 20 s. */
    private static void awaitCount(AtomicInteger count, int atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (count.get() < atLeast && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(count.get()).as("requests answered").isGreaterThanOrEqualTo(atLeast);
    }

    /** A client context trusting the test CA, with a session cache of its own: every handshake is full. */
    private SSLContext trusting() {
        return ca.clientContext(Optional.empty());
    }

    private static SSLParameters sni(String name) {
        SSLParameters parameters = new SSLParameters();
        parameters.setServerNames(List.of(new SNIHostName(name)));
        return parameters;
    }

    private static String serial(java.security.cert.Certificate certificate) {
        return ((X509Certificate) certificate).getSerialNumber().toString(16);
    }

    private static String peerSerial(HttpResponse<?> response) throws IOException {
        assertThat(response.statusCode()).isEqualTo(200);
        return serial(response.sslSession().orElseThrow().getPeerCertificates()[0]);
    }

    private static HttpResponse<byte[]> https(SSLContext context, TestGateway gw, String target) {
        try (HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .sslContext(context)
                .connectTimeout(Duration.ofSeconds(5))
                .build()) {
            return send(client, gw, target);
        }
    }

    private static HttpResponse<byte[]> send(HttpClient client, TestGateway gw, String target) {
        try {
            return client.send(
                    HttpRequest.newBuilder(gw.httpsUri(target))
                            .timeout(Duration.ofSeconds(20))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException("https " + target, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** What one request on a new TLS connection got: the server's certificate, the session, the answer. */
    record Exchange(X509Certificate peer, String protocol, String cipherSuite, String head) {}

    /** One {@code GET} on a new TLS connection ({@code Connection: close}), read to its end. */
    private static Exchange exchange(SSLContext context, int port, SSLParameters parameters, String target) {
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(20_000);
            SSLParameters p = socket.getSSLParameters();
            if (parameters.getServerNames() != null) {
                p.setServerNames(parameters.getServerNames());
            }
            if (parameters.getProtocols() != null) {
                p.setProtocols(parameters.getProtocols());
            }
            socket.setSSLParameters(p);
            socket.startHandshake();
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = new String(readAll(socket.getInputStream()), StandardCharsets.ISO_8859_1);
            int end = answer.indexOf("\r\n");
            return new Exchange(
                    (X509Certificate) socket.getSession().getPeerCertificates()[0],
                    socket.getSession().getProtocol(),
                    socket.getSession().getCipherSuite(),
                    end < 0 ? answer : answer.substring(0, end));
        } catch (IOException e) {
            throw new UncheckedIOException("TLS exchange with 127.0.0.1:" + port + " for " + target, e);
        }
    }

    /**
     * Whether a request on a new TLS connection got no HTTP answer: the handshake failed, or the
     * connection closed (in TLS 1.3 the server refuses a client's certificate after the client's
     * side of the handshake is done, so the refusal arrives on the first read).
     */
    private static boolean refused(SSLContext context, int port, String target) {
        try {
            return !exchange(context, port, new SSLParameters(), target).head().startsWith("HTTP/");
        } catch (UncheckedIOException e) {
            return true;
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        in.transferTo(bytes);
        return bytes.toByteArray();
    }
}
