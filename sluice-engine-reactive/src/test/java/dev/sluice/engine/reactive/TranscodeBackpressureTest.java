package dev.sluice.engine.reactive;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import dev.sluice.config.EngineMode;
import dev.sluice.config.TranscodeConfig;
import dev.sluice.config.UpstreamProtocol;
import dev.sluice.tck.Routes;
import dev.sluice.tck.ShopService;
import dev.sluice.tck.TestGateway;
import dev.sluice.transcode.TranscodeSchema;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A transcoded server stream read slowly by its client: the reactive relay reads the upstream only as
 * the client takes the JSON, so a service sending only while its call is ready stays a bounded number
 * of messages ahead of the client, far below the whole stream (as {@code GrpcContract}'s slow reader).
 */
@ExtendWith(LeakGuard.class)
class TranscodeBackpressureTest {

    private static final int MESSAGES = 64 * 1024;
    private static final String TITLE = "t".repeat(1000); // each element about 1 KiB of JSON

    @Test
    void aSlowClientSlowsTheTranscodedStream() throws Exception {
        AtomicLong sent = new AtomicLong();
        Server server = listBooks(sent);
        try (TestGateway gw = TestGateway.builder(EngineMode.REACTIVE)
                .upstream(Routes.upstream("shop", URI.create("http://127.0.0.1:" + server.getPort()))
                        .connectTimeout(Duration.ofSeconds(10))
                        .protocol(UpstreamProtocol.H2C))
                .route(
                        "shop",
                        on("/v1/**"),
                        proxy("shop")
                                .transcode(new TranscodeConfig(
                                        Path.of("shop.pb"),
                                        List.of(ShopService.SERVICE),
                                        Optional.empty(),
                                        TranscodeConfig.DEFAULT_MAX_MESSAGE,
                                        TranscodeSchema.of(ShopService.descriptors(), List.of(ShopService.SERVICE)))))
                .start()) {
            HttpResponse<InputStream> response = gw.http()
                    .send(
                            HttpRequest.newBuilder(gw.uri("/v1/shelves/" + TITLE + "/books?limit=" + MESSAGES))
                                    .version(HttpClient.Version.HTTP_1_1)
                                    .timeout(Duration.ofSeconds(60))
                                    .build(),
                            HttpResponse.BodyHandlers.ofInputStream());
            assertThat(response.statusCode()).isEqualTo(200);
            long bound = 16 * 1024; // 16 MiB of 1 KiB messages
            long mostAhead = 0;
            long bytes = 0;
            byte[] buffer = new byte[64 * 1024];
            byte last = 0;
            try (InputStream body = response.body()) {
                int n;
                while ((n = body.read(buffer)) >= 0) {
                    if (n == 0) {
                        continue;
                    }
                    long before = bytes;
                    bytes += n;
                    last = buffer[n - 1];
                    long read = bytes / (TITLE.length() + 30); // elements read, at most
                    long ahead = sent.get() - read;
                    mostAhead = Math.max(mostAhead, ahead);
                    assertThat(ahead)
                            .as("messages the service sent ahead of the client at %d bytes", bytes)
                            .isLessThan(bound);
                    if (before / (64 << 10) != bytes / (64 << 10)) {
                        Thread.sleep(4); // a slow reader: the service has time to run ahead if nothing holds it
                    }
                }
            }
            assertThat(last).as("the whole array").isEqualTo((byte) ']');
            assertThat(bytes).isGreaterThan((long) MESSAGES * TITLE.length());
            assertThat(mostAhead).as("the service ran ahead at least a little").isPositive();
            assertThat(sent.get()).isEqualTo(MESSAGES);
        } finally {
            server.shutdownNow();
            server.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** A Shop whose ListBooks sends {@code limit} books titled by the shelf, only while its call is ready. */
    private static Server listBooks(AtomicLong sent) throws IOException {
        Descriptors.FileDescriptor file;
        try {
            file = Descriptors.FileDescriptor.buildFrom(
                    ShopService.descriptors().getFile(0), new Descriptors.FileDescriptor[0]);
        } catch (Descriptors.DescriptorValidationException e) {
            throw new IllegalStateException(e);
        }
        Descriptors.MethodDescriptor list = file.findServiceByName("Shop").findMethodByName("ListBooks");
        Descriptors.Descriptor book = list.getOutputType();
        MethodDescriptor<DynamicMessage, DynamicMessage> method =
                MethodDescriptor.<DynamicMessage, DynamicMessage>newBuilder()
                        .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
                        .setFullMethodName(MethodDescriptor.generateFullMethodName(ShopService.SERVICE, "ListBooks"))
                        .setRequestMarshaller(marshaller(list.getInputType()))
                        .setResponseMarshaller(marshaller(book))
                        .build();
        ServerServiceDefinition definition = ServerServiceDefinition.builder(ShopService.SERVICE)
                .addMethod(method, ServerCalls.asyncServerStreamingCall((request, reply) -> {
                    int limit = (Integer) request.getField(list.getInputType().findFieldByName("limit"));
                    String shelf = (String) request.getField(list.getInputType().findFieldByName("shelf"));
                    ServerCallStreamObserver<DynamicMessage> call = (ServerCallStreamObserver<DynamicMessage>) reply;
                    boolean[] done = {false};
                    call.setOnReadyHandler(() -> {
                        while (call.isReady() && !done[0]) {
                            long id = sent.incrementAndGet();
                            call.onNext(DynamicMessage.newBuilder(book)
                                    .setField(book.findFieldByName("id"), id)
                                    .setField(book.findFieldByName("title"), shelf)
                                    .build());
                            if (id == limit) {
                                done[0] = true;
                                call.onCompleted();
                            }
                        }
                    });
                }))
                .build();
        return NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(definition)
                .build()
                .start();
    }

    private static MethodDescriptor.Marshaller<DynamicMessage> marshaller(Descriptors.Descriptor type) {
        return new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(DynamicMessage value) {
                return new ByteArrayInputStream(value.toByteArray());
            }

            @Override
            public DynamicMessage parse(InputStream stream) {
                try {
                    return DynamicMessage.parseFrom(type, stream);
                } catch (IOException e) {
                    throw Status.INVALID_ARGUMENT.withCause(e).asRuntimeException();
                }
            }
        };
    }
}
