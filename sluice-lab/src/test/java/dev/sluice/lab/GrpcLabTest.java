package dev.sluice.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.lab.grpc.GrpcLoad;
import dev.sluice.lab.grpc.JsonLoad;
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
    void theMessagesAreTheDescribedMsgAndItsJsonSaysTheSame() throws Exception {
        com.google.protobuf.DescriptorProtos.FileDescriptorSet set =
                com.google.protobuf.DescriptorProtos.FileDescriptorSet.parseFrom(GrpcLoad.descriptorSet());
        com.google.protobuf.Descriptors.FileDescriptor file = com.google.protobuf.Descriptors.FileDescriptor.buildFrom(
                set.getFile(0), new com.google.protobuf.Descriptors.FileDescriptor[0]);
        assertThat(file.findServiceByName("Echo").findMethodByName("Stream").isServerStreaming())
                .isTrue();
        com.google.protobuf.Descriptors.Descriptor msg = file.findMessageTypeByName("Msg");
        com.google.protobuf.DynamicMessage parsed =
                com.google.protobuf.DynamicMessage.parseFrom(msg, GrpcLoad.message(100, 300));
        assertThat(parsed.getField(msg.findFieldByName("n"))).isEqualTo(100);
        assertThat((String) parsed.getField(msg.findFieldByName("text")))
                .hasSize(295)
                .matches("x+");
        assertThat(GrpcLoad.message(100, 300)).hasSizeBetween(298, 302);
        assertThat(GrpcLoad.countOf(GrpcLoad.message(7, 64))).isEqualTo(7);
        assertThat(JsonLoad.body(100, 300)).isEqualTo("{\"n\":100,\"text\":\"" + "x".repeat(295) + "\"}");
        assertThat(JsonLoad.elements("[{\"n\":2,\"text\":\"xx\"},{\"n\":2,\"text\":\"xx\"}]"
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .isEqualTo(2);
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
                .contains("| transcode | virtual | unary |", "| transcode | virtual | stream |")
                .contains("| compose | virtual | unary |", "| compose | virtual | stream |")
                .doesNotContain("NaN", "Infinity");
        assertThat(results.resolve("gateway.yaml")).isRegularFile();
        assertThat(results.resolve("echo.pb")).isRegularFile();
    }
}
