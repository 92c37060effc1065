package dev.sluice.lab.grpc;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The grpc scenario's service and load, both grpc-java (plaintext h2c on loopback), messages raw bytes
 * (no protobuf needed): {@code sluice.lab.Echo/Say} answers its request, {@code sluice.lab.Echo/Stream}
 * answers {@code n} messages of the request's size for a request whose first byte is {@code n}.
 */
public final class GrpcLoad {

    public static final String SERVICE = "sluice.lab.Echo";

    /** Messages as they are. */
    static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    public static final MethodDescriptor<byte[], byte[]> SAY = method("Say", MethodDescriptor.MethodType.UNARY);
    public static final MethodDescriptor<byte[], byte[]> STREAM =
            method("Stream", MethodDescriptor.MethodType.SERVER_STREAMING);

    /** What one load run measured: calls made, failed, and each call's latency. */
    public record Result(long calls, long failures, long[] latencyNanos, long elapsedNanos) {
        public double callsPerSecond() {
            return calls * 1e9 / Math.max(1, elapsedNanos);
        }

        /** The latency at quantile {@code q} (0..1) in milliseconds, or NaN without calls. */
        public double quantileMillis(double q) {
            if (latencyNanos.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.min(latencyNanos.length - 1, Math.ceil(q * latencyNanos.length) - 1);
            return latencyNanos[Math.max(0, i)] / 1e6;
        }
    }

    private GrpcLoad() {}

    private static MethodDescriptor<byte[], byte[]> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(BYTES)
                .setResponseMarshaller(BYTES)
                .build();
    }

    /** Starts the service on a free loopback port. */
    public static Server serve() {
        ServerServiceDefinition echo = ServerServiceDefinition.builder(SERVICE)
                .addMethod(SAY, ServerCalls.asyncUnaryCall((request, reply) -> {
                    reply.onNext(request);
                    reply.onCompleted();
                }))
                .addMethod(STREAM, ServerCalls.asyncServerStreamingCall((request, reply) -> {
                    for (int i = 0, n = request.length == 0 ? 0 : request[0] & 0xff; i < n; i++) {
                        reply.onNext(request);
                    }
                    reply.onCompleted();
                }))
                .build();
        try {
            return NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .addService(echo)
                    .build()
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code concurrency} callers, each making one call after another on one shared channel to
     * {@code port} for {@code seconds}: unary Say with {@code size} bytes, or a Stream of
     * {@code messages} messages of {@code size} bytes read to its end.
     */
    public static Result run(int port, boolean stream, int concurrency, double seconds, int size, int messages)
            throws InterruptedException {
        ManagedChannel channel =
                NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        try {
            byte[] request = new byte[size];
            Arrays.fill(request, (byte) 'x');
            request[0] = (byte) messages;
            long began = System.nanoTime();
            long end = began + (long) (seconds * 1e9);
            List<Thread> callers = new ArrayList<>();
            long[][] latencies = new long[concurrency][];
            long[] failures = new long[concurrency];
            for (int c = 0; c < concurrency; c++) {
                int me = c;
                callers.add(Thread.ofPlatform().name("grpc-load-" + c).start(() -> {
                    long[] mine = new long[1024];
                    int n = 0;
                    while (System.nanoTime() < end) {
                        long t0 = System.nanoTime();
                        try {
                            CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
                            if (stream) {
                                Iterator<byte[]> it =
                                        ClientCalls.blockingServerStreamingCall(channel, STREAM, options, request);
                                int got = 0;
                                while (it.hasNext()) {
                                    it.next();
                                    got++;
                                }
                                if (got != messages) {
                                    failures[me]++;
                                    continue;
                                }
                            } else {
                                ClientCalls.blockingUnaryCall(channel, SAY, options, request);
                            }
                        } catch (RuntimeException e) {
                            failures[me]++;
                            continue;
                        }
                        if (n == mine.length) {
                            mine = Arrays.copyOf(mine, n * 2);
                        }
                        mine[n++] = System.nanoTime() - t0;
                    }
                    latencies[me] = Arrays.copyOf(mine, n);
                }));
            }
            for (Thread t : callers) {
                t.join();
            }
            long elapsed = System.nanoTime() - began;
            long[] all = Arrays.stream(latencies)
                    .flatMapToLong(Arrays::stream)
                    .sorted()
                    .toArray();
            return new Result(all.length, Arrays.stream(failures).sum(), all, elapsed);
        } finally {
            channel.shutdownNow();
            channel.awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
