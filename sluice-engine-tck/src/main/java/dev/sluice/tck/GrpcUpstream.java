package dev.sluice.tck;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A real gRPC service (grpc-java over its own Netty, plaintext h2c on loopback port 0), its messages
 * UTF-8 strings carried by a byte marshaller so that no generated code is needed:
 *
 * <pre>
 *   sluice.test.Echo/Say      unary: "hello " + the request
 *   sluice.test.Echo/Count    server streaming: "1" … "n" for a request "n"
 *   sluice.test.Echo/Fail     unary: NOT_FOUND with the request as its message
 * </pre>
 */
public final class GrpcUpstream implements AutoCloseable {

    public static final String SERVICE = "sluice.test.Echo";

    /** Messages as UTF-8 strings. */
    public static final MethodDescriptor.Marshaller<String> TEXT = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    public static final MethodDescriptor<String, String> SAY = method("Say", MethodDescriptor.MethodType.UNARY);
    public static final MethodDescriptor<String, String> COUNT =
            method("Count", MethodDescriptor.MethodType.SERVER_STREAMING);
    public static final MethodDescriptor<String, String> FAIL = method("Fail", MethodDescriptor.MethodType.UNARY);

    private final Server server;

    private GrpcUpstream(Server server) {
        this.server = server;
    }

    /** A method of {@link #SERVICE} named {@code name}, in any service {@code service}. */
    public static MethodDescriptor<String, String> method(
            String service, String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<String, String>newBuilder()
                .setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(service, name))
                .setRequestMarshaller(TEXT)
                .setResponseMarshaller(TEXT)
                .build();
    }

    private static MethodDescriptor<String, String> method(String name, MethodDescriptor.MethodType type) {
        return method(SERVICE, name, type);
    }

    public static GrpcUpstream start() {
        ServerServiceDefinition echo = ServerServiceDefinition.builder(SERVICE)
                .addMethod(SAY, ServerCalls.asyncUnaryCall((request, reply) -> {
                    reply.onNext("hello " + request);
                    reply.onCompleted();
                }))
                .addMethod(COUNT, ServerCalls.asyncServerStreamingCall((request, reply) -> {
                    for (int i = 1, n = Integer.parseInt(request); i <= n; i++) {
                        reply.onNext(Integer.toString(i));
                    }
                    reply.onCompleted();
                }))
                .addMethod(
                        FAIL,
                        ServerCalls.asyncUnaryCall((request, reply) -> reply.onError(
                                Status.NOT_FOUND.withDescription(request).asRuntimeException())))
                .build();
        try {
            Server server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .addService(echo)
                    .build()
                    .start();
            return new GrpcUpstream(server);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Its URL, for an upstream of {@code protocol: h2c}. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getPort());
    }

    /** A plaintext channel (h2c by prior knowledge) to {@code port} on loopback: the gateway's. */
    public static ManagedChannel channel(int port) {
        return NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    }

    public static CallOptions options() {
        return CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        server.shutdownNow();
        try {
            server.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
