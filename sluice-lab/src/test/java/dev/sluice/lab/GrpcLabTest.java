package dev.sluice.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.lab.grpc.GrpcLoad;
import io.grpc.Server;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The grpc scenario: its load against its service alone, and a very short run through one engine. */
class GrpcLabTest {

    @TempDir
    Path out;

    @Test
    void theLoadCallsTheServiceAndTimesEveryCall() throws Exception {
        Server service = GrpcLoad.serve();
        try {
            GrpcLoad.Result unary = GrpcLoad.run(service.getPort(), false, 2, 0.5, 64, 1);
            assertThat(unary.failures()).isZero();
            assertThat(unary.calls()).isPositive().isEqualTo(unary.latencyNanos().length);
            assertThat(unary.quantileMillis(0.5)).isPositive().isLessThanOrEqualTo(unary.quantileMillis(0.99));
            GrpcLoad.Result stream = GrpcLoad.run(service.getPort(), true, 2, 0.5, 64, 20);
            assertThat(stream.failures()).as("every stream had its 20 messages").isZero();
            assertThat(stream.calls()).isPositive();
        } finally {
            service.shutdownNow();
        }
    }

    @Test
    @Tag("slow")
    void aShortRunThroughOneEngineWritesItsTable() throws Exception {
        Workspace ws = Workspace.locate(java.util.Optional.empty(), java.util.Optional.empty());
        ws.ensureGatewayJar(out.resolve("gateway-build.log"));
        Path results = out.resolve("grpc");
        int exit = LabMain.run(List.of(
                "grpc",
                "--duration",
                "1s",
                "--warmup",
                "1s",
                "--concurrency",
                "2",
                "--subjects",
                "virtual",
                "--out",
                results.toString()));
        assertThat(exit).as("exit code (0: no call failed)").isZero();
        String md = Files.readString(results.resolve("report.md"));
        assertThat(md)
                .contains("| leg | subject | call | calls/s | failed | gateway CPU ms/call |")
                .contains("| direct | - | unary |", "| direct | - | stream |")
                .contains("| proxy | virtual | unary |", "| proxy | virtual | stream |")
                .doesNotContain("NaN", "Infinity");
        assertThat(results.resolve("gateway.yaml")).isRegularFile();
    }
}
