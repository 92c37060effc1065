package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hot reload of {@code sluice run}'s file, in every engine mode, against real upstreams that note
 * which connection each request came on: a changed file is applied under load without a failed
 * request, the new routes answer soon after the write, an unchanged upstream keeps its pooled
 * connections and a changed one gets new ones; a bad file, or one that changes what only a restart
 * can, changes nothing and says why by path.
 */
class ReloadTest {

    @TempDir
    Path dir;

    /**
     * An upstream that answers its name and records the client port of every request: {@code before}
     * the file is written, {@code after} every request that began before the swap has ended (none
     * in between).
     */
    private static final class Upstream implements AutoCloseable {
        final HttpServer server;
        final Set<Integer> before = ConcurrentHashMap.newKeySet();
        final Set<Integer> after = ConcurrentHashMap.newKeySet();
        volatile int phase; // 0 before, 1 between, 2 after

        Upstream(String name) throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.createContext("/", exchange -> {
                int port = exchange.getRemoteAddress().getPort();
                switch (phase) {
                    case 0 -> before.add(port);
                    case 2 -> after.add(port);
                    default -> {}
                }
                byte[] body = ("{\"from\":\"" + name + "\"}").getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    private static String config(Upstream alpha, Upstream beta, String betaConnections, String routes) {
        return """
                server: { host: 127.0.0.1, port: 0 }
                admin: { host: 127.0.0.1, port: 0 }
                upstreams:
                  alpha: { url: "%s" }
                  beta: { url: "%s", max-connections: %s }
                routes:
                %s
                """.formatted(alpha.url(), beta.url(), betaConnections, routes);
    }

    private static final String ROUTES_BEFORE = """
              - { id: a, match: { path: "/a/**" }, proxy: { upstream: alpha } }
              - { id: old, match: { path: "/old/**" }, proxy: { upstream: beta } }
            """;

    private static final String ROUTES_AFTER = """
              - { id: a, match: { path: "/a/**" }, proxy: { upstream: alpha } }
              - { id: new, match: { path: "/new/**" }, proxy: { upstream: beta } }
            """;

    /** Replaces the file in one step, as an editor or Kubernetes does (a reader never sees half of it). */
    private void replace(Path file, String text) throws IOException {
        Path next = Files.writeString(dir.resolve(file.getFileName() + ".next"), text);
        Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform", "reactive"})
    void aChangedFileIsAppliedUnderLoadWithoutLosingARequest(String engine) throws Exception {
        try (Upstream alpha = new Upstream("alpha");
                Upstream beta = new Upstream("beta")) {
            Path file = Files.writeString(dir.resolve("gateway.yaml"), config(alpha, beta, "64", ROUTES_BEFORE));
            List<String> failures = new CopyOnWriteArrayList<>();
            AtomicInteger served = new AtomicInteger();
            AtomicLongHolder appliedAfter = new AtomicLongHolder();
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        URI gateway = session.gatewayUrl().orElseThrow();
                        assertThat(Http.get(gateway, "/old/x").statusCode()).isEqualTo(200);
                        AtomicBoolean stop = new AtomicBoolean();
                        CountDownLatch warm = new CountDownLatch(50);
                        List<Thread> load = new java.util.ArrayList<>();
                        AtomicInteger[] done = new AtomicInteger[4]; // requests each client completed
                        for (int i = 0; i < 4; i++) { // four clients, each on its own keep-alive connection
                            AtomicInteger mine = done[i] = new AtomicInteger();
                            HttpClient client = HttpClient.newBuilder()
                                    .version(HttpClient.Version.HTTP_1_1)
                                    .build();
                            load.add(Thread.ofVirtual().start(() -> {
                                while (!stop.get()) {
                                    try {
                                        HttpResponse<String> r = client.send(
                                                HttpRequest.newBuilder(URI.create(gateway + "/a/x"))
                                                        .timeout(Duration.ofSeconds(20))
                                                        .build(),
                                                HttpResponse.BodyHandlers.ofString());
                                        if (r.statusCode() == 200 && r.body().equals("{\"from\":\"alpha\"}")) {
                                            served.incrementAndGet();
                                        } else {
                                            failures.add(r.statusCode() + " " + r.body());
                                        }
                                    } catch (Exception e) {
                                        failures.add(e.toString());
                                    }
                                    mine.incrementAndGet();
                                    warm.countDown();
                                }
                            }));
                        }
                        assertThat(warm.await(30, TimeUnit.SECONDS)).isTrue();
                        alpha.phase = 1;
                        beta.phase = 2; // only /old/x used it so far; after the swap only /new/x does
                        long written = System.nanoTime();
                        // beta changes (its pool must be new), alpha does not (its pool must carry over)
                        replace(file, config(alpha, beta, "32", ROUTES_AFTER));
                        while (Http.get(gateway, "/new/x").statusCode() != 200) {
                            assertThat(System.nanoTime() - written)
                                    .as("the new route answers soon after the write")
                                    .isLessThan(TimeUnit.SECONDS.toNanos(10));
                            Thread.sleep(10);
                        }
                        appliedAfter.nanos = System.nanoTime() - written;
                        // each client's request in flight at the swap ends: from then on all run on the new snapshot
                        int[] at = new int[done.length];
                        for (int i = 0; i < done.length; i++) {
                            at[i] = done[i].get();
                        }
                        for (int i = 0; i < done.length; i++) {
                            while (done[i].get() < at[i] + 1) {
                                Thread.sleep(1);
                            }
                        }
                        alpha.phase = 2;
                        for (int i = 0; i < 5; i++) {
                            assertThat(Http.get(gateway, "/new/x").statusCode()).isEqualTo(200);
                        }
                        HttpResponse<String> gone = Http.get(gateway, "/old/x");
                        assertThat(gone.statusCode()).as(gone.body()).isEqualTo(404);
                        int seen = served.get();
                        while (served.get() < seen + 50) { // the load goes on after the swap
                            assertThat(failures).isEmpty();
                            Thread.sleep(5);
                        }
                        stop.set(true);
                        for (Thread t : load) {
                            t.join(Duration.ofSeconds(30));
                        }
                        HttpResponse<String> routes =
                                Http.get(session.adminUrl().orElseThrow(), "/routes");
                        assertThat(routes.body()).contains("\"new\"").doesNotContain("\"old\"");
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    engine);
            assertThat(result.exitCode()).as(result.err()).isZero();
            assertThat(failures).as("requests that failed around the reload").isEmpty();
            assertThat(result.err()).contains("config reloaded (file changed)");
            assertThat(alpha.after)
                    .as("alpha is unchanged: requests after the reload still use its pooled connections")
                    .containsAnyElementsOf(alpha.before);
            assertThat(beta.after)
                    .as("beta changed: its old pool is retired, the new one opens its own connections")
                    .isNotEmpty()
                    .doesNotContainAnyElementsOf(beta.before);
            System.out.printf(
                    "reload (%s): new route answered %d ms after the write; %d requests served, none failed;"
                            + " alpha's connections %s before, %s after; beta's %s before, %s after%n",
                    engine,
                    TimeUnit.NANOSECONDS.toMillis(appliedAfter.nanos),
                    served.get(),
                    alpha.before,
                    alpha.after,
                    beta.before,
                    beta.after);
        }
    }

    private static final class AtomicLongHolder {
        volatile long nanos;
    }

    @Test
    void aBadFileOrOneThatNeedsARestartChangesNothingAndSaysWhyByPath() throws Exception {
        try (Upstream alpha = new Upstream("alpha");
                Upstream beta = new Upstream("beta")) {
            Path file = Files.writeString(dir.resolve("gateway.yaml"), config(alpha, beta, "64", ROUTES_BEFORE));
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        URI gateway = session.gatewayUrl().orElseThrow();
                        URI admin = session.adminUrl().orElseThrow();
                        // a route naming an upstream that does not exist
                        replace(
                                file,
                                config(
                                        alpha,
                                        beta,
                                        "64",
                                        ROUTES_AFTER
                                                + "  - { id: bad, match: { path: \"/bad\" }, proxy: { upstream: gamma } }\n"));
                        HttpResponse<String> refused = post(admin, "/reload");
                        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
                        Map<String, Object> body = Http.json(refused.body());
                        assertThat(body.get("error")).isEqualTo("invalid_config");
                        assertThat(refused.body()).contains("routes[2].proxy.upstream");
                        assertThat(Http.get(gateway, "/old/x").statusCode())
                                .as("the running configuration stays")
                                .isEqualTo(200);
                        assertThat(Http.get(gateway, "/new/x").statusCode()).isEqualTo(404);

                        // what only a restart can change refuses the whole file, naming each key
                        replace(
                                file,
                                config(alpha, beta, "64", ROUTES_AFTER)
                                        .replace("port: 0 }\nadmin", "port: 0, read-ahead: 32768 }\nadmin"));
                        HttpResponse<String> restart = post(admin, "/reload");
                        assertThat(restart.statusCode()).as(restart.body()).isEqualTo(400);
                        assertThat(restart.body()).contains("server.read-ahead").contains("restart");
                        assertThat(Http.get(gateway, "/old/x").statusCode()).isEqualTo(200);

                        // a good file, asked for by POST /reload
                        replace(file, config(alpha, beta, "64", ROUTES_AFTER));
                        HttpResponse<String> applied = post(admin, "/reload");
                        assertThat(applied.statusCode()).as(applied.body()).isEqualTo(200);
                        assertThat(Http.json(applied.body()))
                                .containsEntry("status", "reloaded")
                                .containsEntry("routes", 2);
                        assertThat(Http.get(gateway, "/new/x").statusCode()).isEqualTo(200);
                        assertThat(Http.get(gateway, "/old/x").statusCode()).isEqualTo(404);
                        assertThat(Http.get(admin, "/config").body())
                                .as("GET /config shows the file that was applied")
                                .contains("\"id\":\"new\"")
                                .doesNotContain("\"id\":\"old\"");

                        String metrics = Http.get(admin, "/metrics").body();
                        assertThat(metrics).containsPattern("sluice_config_reloads_total\\{outcome=\"refused\"} [2-9]");
                        assertThat(metrics).containsPattern("sluice_config_reloads_total\\{outcome=\"applied\"} [1-9]");
                        assertThat(Http.get(admin, "/reload").statusCode()).isEqualTo(405);
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    "reactive");
            assertThat(result.exitCode()).as(result.err()).isZero();
            assertThat(result.err())
                    .contains("config reload (POST /reload) refused; the running configuration stays")
                    .contains("routes[2].proxy.upstream");
        }
    }

    /**
     * A reload's refusal names what it refuses without a secret the file gave: an upstream URL's user
     * info (a problem), a Redis URL's password (a change that needs a restart), neither in the admin
     * listener's answer nor in the log.
     */
    @Test
    void aRefusedReloadNeverPrintsASecretOfTheFile() throws Exception {
        try (Upstream alpha = new Upstream("alpha");
                Upstream beta = new Upstream("beta")) {
            Path file = Files.writeString(dir.resolve("gateway.yaml"), config(alpha, beta, "64", ROUTES_BEFORE));
            List<String> answers = new CopyOnWriteArrayList<>();
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        URI admin = session.adminUrl().orElseThrow();
                        replace(
                                file,
                                config(alpha, beta, "64", ROUTES_BEFORE)
                                        .replace("http://127.0.0.1", "http://user:s3cret-upstream@127.0.0.1"));
                        HttpResponse<String> userInfo = post(admin, "/reload");
                        assertThat(userInfo.statusCode()).as(userInfo.body()).isEqualTo(400);
                        assertThat(userInfo.body())
                                .contains("upstreams.alpha.url")
                                .contains("user:***@");
                        answers.add(userInfo.body());

                        replace(
                                file,
                                config(alpha, beta, "64", ROUTES_BEFORE)
                                        + "redis: { url: \"redis://:s3cret-redis@127.0.0.1:6379\" }\n");
                        HttpResponse<String> redis = post(admin, "/reload");
                        assertThat(redis.statusCode()).as(redis.body()).isEqualTo(400);
                        assertThat(redis.body()).contains("redis").contains("restart");
                        answers.add(redis.body());

                        replace(
                                file,
                                config(alpha, beta, "64", ROUTES_BEFORE)
                                                .replace(
                                                        "admin: { host: 127.0.0.1, port: 0 }",
                                                        "admin: { host: 127.0.0.1," + " port: 0, drain-delay: 2s }")
                                        + "logging: { level: debug }\n");
                        HttpResponse<String> keys = post(admin, "/reload");
                        assertThat(keys.statusCode()).as(keys.body()).isEqualTo(400);
                        assertThat(keys.body())
                                .as("each key by its path, its values as the file writes them")
                                .contains("admin.drain-delay")
                                .contains("running: 0s, file: 2s")
                                .contains("logging.level")
                                .doesNotContain("AdminConfig[")
                                .doesNotContain("LoggingConfig[")
                                .doesNotContain("Optional[");
                        answers.add(Http.get(admin, "/config").body());
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    "reactive");
            assertThat(result.exitCode()).as(result.err()).isZero();
            assertThat(answers).hasSize(3).allSatisfy(a -> assertThat(a).doesNotContain("s3cret"));
            assertThat(result.err()).contains("config reload (POST /reload) refused");
            assertThat(result.out() + result.err()).doesNotContain("s3cret");
        }
    }

    /**
     * With {@code include:}, a fragment changed or added is a change of the configuration: the
     * watcher sees it in the included directory and applies the files as one snapshot.
     */
    @Test
    void aChangedOrAddedIncludedFileIsReloaded() throws Exception {
        try (Upstream alpha = new Upstream("alpha");
                Upstream beta = new Upstream("beta")) {
            Path confD = Files.createDirectories(dir.resolve("conf.d"));
            Path file = Files.writeString(
                    dir.resolve("gateway.yaml"), "include: conf.d/*.yaml\n" + config(alpha, beta, "64", ROUTES_BEFORE));
            Path orders = Files.writeString(
                    confD.resolve("10-orders.yaml"),
                    "routes: [ { id: orders, match: { path: \"/orders/**\" }, proxy: { upstream: beta } } ]\n");
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        URI gateway = session.gatewayUrl().orElseThrow();
                        assertThat(Http.get(gateway, "/orders/1").statusCode()).isEqualTo(200);
                        replace(
                                orders,
                                "routes: [ { id: orders, match: { path: \"/orders2/**\" }, proxy: { upstream: beta } } ]\n");
                        awaitStatus(gateway, "/orders2/1", 200);
                        assertThat(Http.get(gateway, "/orders/1").statusCode()).isEqualTo(404);
                        replace(
                                confD.resolve("20-more.yaml"),
                                "routes: [ { id: more, match: { path: \"/more/**\" }, proxy: { upstream: alpha } } ]\n");
                        awaitStatus(gateway, "/more/1", 200);
                        assertThat(Http.get(session.adminUrl().orElseThrow(), "/config")
                                        .body())
                                .as("GET /config shows the merged files")
                                .contains("\"id\":\"more\"")
                                .contains("\"id\":\"orders\"")
                                .doesNotContain("include");
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    "virtual");
            assertThat(result.exitCode()).as(result.err()).isZero();
            assertThat(result.err()).contains("config reloaded (file changed)");
        }
    }

    /** Waits (bounded) until {@code path} answers {@code status}: the reload is an event seen by its effect. */
    private static void awaitStatus(URI gateway, String path, int status) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int last;
        do {
            last = Http.get(gateway, path).statusCode();
            if (last == status) {
                return;
            }
            Thread.sleep(20);
        } while (System.nanoTime() < deadline);
        assertThat(last).as(path).isEqualTo(status);
    }

    /**
     * Whether this process started with SIGHUP ignored (under {@code nohup}, say): its mask of ignored
     * signals in /proc (bit 0 is SIGHUP). The JVM keeps such a signal ignored, so no handler can run.
     */
    private static boolean sighupIgnored() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.exists(status)) {
            return false;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring(7).strip(), 16) & 1) != 0;
            }
        }
        return false;
    }

    @Test
    void sighupReadsTheFileAgain() throws Exception {
        try (Upstream alpha = new Upstream("alpha");
                Upstream beta = new Upstream("beta")) {
            Path file = Files.writeString(dir.resolve("gateway.yaml"), config(alpha, beta, "64", ROUTES_BEFORE));
            if (sighupIgnored()) { // the gateway cannot hear it, and says so instead of staying silent
                CliRunner.Result ignored = CliRunner.run(session -> {}, "run", "-c", file.toString());
                assertThat(ignored.exitCode()).as(ignored.err()).isZero();
                assertThat(ignored.err()).contains("SIGHUP is ignored by this process");
                return;
            }
            AtomicReference<String> log = new AtomicReference<>();
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        Process kill = new ProcessBuilder(
                                        "kill",
                                        "-HUP",
                                        String.valueOf(ProcessHandle.current().pid()))
                                .inheritIO()
                                .start();
                        assertThat(kill.waitFor()).isZero();
                        URI admin = session.adminUrl().orElseThrow();
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        String metrics;
                        do {
                            Thread.sleep(20);
                            metrics = Http.get(admin, "/metrics").body();
                        } while (!metrics.contains("sluice_config_reloads_total{outcome=\"applied\"} 1")
                                && System.nanoTime() < deadline);
                        log.set(metrics);
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    "virtual");
            assertThat(result.exitCode()).as(result.err()).isZero();
            assertThat(log.get()).contains("sluice_config_reloads_total{outcome=\"applied\"} 1");
            assertThat(result.err()).contains("config reloaded (SIGHUP)");
        }
    }

    private static HttpResponse<String> post(URI base, String path) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(base + path))
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .timeout(Duration.ofSeconds(20))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }
}
