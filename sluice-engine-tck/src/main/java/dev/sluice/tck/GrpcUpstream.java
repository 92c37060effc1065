package dev.sluice.tck;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real gRPC service (grpc-java over its own Netty, plaintext h2c on loopback port 0), its messages
 * UTF-8 strings carried by a byte marshaller so that no generated code is needed:
 *
 * <pre>
 *   sluice.test.Echo/Say      unary: "hello " + the request
 *   sluice.test.Echo/Count    server streaming: "1" … "n" for a request "n"
 *   sluice.test.Echo/Fail     unary: NOT_FOUND with the request as its message
 *   sluice.test.Echo/Collect  client streaming: the messages joined by ",", trailer x-count: how many
 *   sluice.test.Echo/Chat     bidi streaming: "echo " + each message as it arrives, trailer x-count
 *   sluice.test.Echo/Flood    server streaming: "n:size" → n messages of size bytes, sent only while the
 *                             call is ready (flow control), counted in {@link #floodSent()}
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
    public static final MethodDescriptor<String, String> COLLECT =
            method("Collect", MethodDescriptor.MethodType.CLIENT_STREAMING);
    public static final MethodDescriptor<String, String> CHAT =
            method("Chat", MethodDescriptor.MethodType.BIDI_STREAMING);
    public static final MethodDescriptor<String, String> FLOOD =
            method("Flood", MethodDescriptor.MethodType.SERVER_STREAMING);

    /** The trailer Collect and Chat end with: how many messages they received. */
    public static final Metadata.Key<String> COUNT_TRAILER =
            Metadata.Key.of("x-count", Metadata.ASCII_STRING_MARSHALLER);

    private final AtomicLong floodSent = new AtomicLong();

    private Server server;

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

    /** Messages Flood has handed to its transport since the last {@link #resetFlood()}. */
    public long floodSent() {
        return floodSent.get();
    }

    public void resetFlood() {
        floodSent.set(0);
    }

    public static GrpcUpstream start() {
        GrpcUpstream upstream = new GrpcUpstream();
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
                .addMethod(COLLECT, ServerCalls.asyncClientStreamingCall(reply -> new Joiner(reply, "", ",")))
                .addMethod(CHAT, ServerCalls.asyncBidiStreamingCall(reply -> new Joiner(reply, "echo ", null)))
                .addMethod(FLOOD, ServerCalls.asyncServerStreamingCall(upstream::flood))
                .build();
        try {
            Server server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .addService(echo)
                    .build()
                    .start();
            upstream.server = server;
            return upstream;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void flood(String request, StreamObserver<String> observer) {
        ServerCallStreamObserver<String> reply = (ServerCallStreamObserver<String>) observer;
        String[] spec = request.split(":");
        long n = Long.parseLong(spec[0]);
        String message = "x".repeat(Integer.parseInt(spec[1]));
        AtomicLong sent = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        reply.setOnCancelHandler(() -> done.set(true));
        reply.setOnReadyHandler(
                () -> { // grpc-java calls it serially, on its executor
                    while (!done.get() && sent.get() < n) {
                        if (!reply.isReady()) {
                            return; // called again once the transport drains
                        }
                        reply.onNext(message);
                        sent.incrementAndGet();
                        floodSent.incrementAndGet();
                    }
                    if (done.compareAndSet(false, true)) {
                        reply.onCompleted();
                    }
                });
    }

    /** Collect (joins, answers at the end) and Chat (answers each message as it arrives). */
    private static final class Joiner implements StreamObserver<String> {
        private final StreamObserver<String> reply;
        private final String prefix;
        private final String separator; // null: answer each message at once
        private final StringBuilder joined = new StringBuilder();
        private int count;

        Joiner(StreamObserver<String> reply, String prefix, String separator) {
            this.reply = reply;
            this.prefix = prefix;
            this.separator = separator;
        }

        @Override
        public void onNext(String value) {
            count++;
            if (separator == null) {
                reply.onNext(prefix + value);
            } else {
                joined.append(joined.isEmpty() ? "" : separator).append(value);
            }
        }

        @Override
        public void onError(Throwable t) {
            // the client went away: nothing to answer
        }

        @Override
        public void onCompleted() {
            if (separator != null) {
                reply.onNext(prefix + joined);
            }
            Metadata trailers = new Metadata();
            trailers.put(COUNT_TRAILER, Integer.toString(count));
            reply.onError(Status.OK.asRuntimeException(trailers)); // OK with a trailer of its own
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
