package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.tck.GrpcUpstream;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code sluice run} proxying gRPC to a real grpc-java service over h2c, in every engine mode: the
 * {@code grpc-status} each client got is counted per route on {@code /metrics}
 * ({@code sluice_grpc_calls_total}), the h2 upstream's pool shows in {@code sluice_upstream_connections},
 * and each call's access log line carries its {@code grpc_status}.
 */
class GrpcMetricsTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform", "reactive"})
    void grpcStatusesAreCountedPerRouteAndLogged(String engine) throws Exception {
        try (GrpcUpstream service = GrpcUpstream.start()) {
            Path file =
                    Files.writeString(dir.resolve("gateway.yaml"), """
          server: { host: 127.0.0.1, port: 0 }
          admin: { host: 127.0.0.1, port: 0 }
          upstreams:
            echo: { url: "%s", protocol: h2c }
          routes:
            - id: echo
              match: { path: "/%s/**" }
              proxy: { upstream: echo }
          logging:
            access: { to: stdout }
          """.formatted(service.url(), GrpcUpstream.SERVICE));
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        URI gateway = session.gatewayUrl().orElseThrow();
                        URI admin = session.adminUrl().orElseThrow();
                        ManagedChannel channel = GrpcUpstream.channel(gateway.getPort());
                        try {
                            for (int i = 0; i < 2; i++) {
                                assertThat(ClientCalls.blockingUnaryCall(
                                                channel, GrpcUpstream.SAY, GrpcUpstream.options(), "m"))
                                        .isEqualTo("hello m");
                            }
                            try {
                                ClientCalls.blockingUnaryCall(channel, GrpcUpstream.FAIL, GrpcUpstream.options(), "x");
                                throw new AssertionError("Fail succeeded");
                            } catch (StatusRuntimeException e) {
                                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
                            }
                        } finally {
                            channel.shutdownNow();
                            channel.awaitTermination(5, TimeUnit.SECONDS);
                        }
                        // an exchange is reported once its answer is written, which may be just after the
                        // client had its trailers: scrape again until every line is there, boundedly
                        List<String> expected = new java.util.ArrayList<>(List.of(
                                "sluice_grpc_calls_total{grpc_status=\"0\",route=\"echo\"} 2.0",
                                "sluice_grpc_calls_total{grpc_status=\"5\",route=\"echo\"} 1.0",
                                "sluice_upstream_calls_seconds_count{outcome=\"ok\",upstream=\"echo\"} 3",
                                "sluice_upstream_connections{state=\"pending\",upstream=\"echo\"} 0.0"));
                        if (!engine.equals("reactive")) { // the reactive engine's h2 pools are not counted yet
                            // the three calls took one connection, kept open and idle once they ended
                            expected.add("sluice_upstream_connections{state=\"idle\",upstream=\"echo\"} 1.0");
                            expected.add("sluice_upstream_connections{state=\"in_use\",upstream=\"echo\"} 0.0");
                        }
                        String text = Http.get(admin, "/metrics").body();
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        while (!expected.stream().allMatch(text::contains) && System.nanoTime() < deadline) {
                            Thread.sleep(20);
                            text = Http.get(admin, "/metrics").body();
                        }
                        for (String line : expected) {
                            assertThat(text).as("/metrics has " + line).contains(line);
                        }
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    engine);
            assertThat(result.exitCode()).as(result.err()).isZero();
            List<String> calls = result.out()
                    .lines()
                    .filter(line -> line.contains("\"route\":\"echo\""))
                    .toList();
            assertThat(calls).hasSize(3);
            assertThat(calls.stream().filter(l -> l.contains("\"grpc_status\":0")))
                    .hasSize(2);
            assertThat(calls.stream().filter(l -> l.contains("\"grpc_status\":5")))
                    .hasSize(1);
        }
    }
}
