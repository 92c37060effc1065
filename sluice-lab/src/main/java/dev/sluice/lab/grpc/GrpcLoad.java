package dev.sluice.lab.grpc;

import com.google.protobuf.DescriptorProtos;
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
 * The grpc scenario's service and load, both grpc-java (plaintext h2c on loopback). Every message is a
 * {@code sluice.lab.Msg {int32 n = 1; string text = 2;}} ({@link #descriptorSet()}, for the gateway's
 * transcoding), carried as raw bytes: {@code sluice.lab.Echo/Say} answers its request,
 * {@code sluice.lab.Echo/Stream} answers {@code n} copies of it.
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

    /**
     * A {@code Msg} of about {@code size} bytes (at least its {@code n}): {@code n} as field 1, then a
     * text of {@code 'x'}s as field 2.
     */
    public static byte[] message(int n, int size) {
        if (n < 0 || n > 127) {
            throw new IllegalArgumentException("n: " + n + " (0 to 127)");
        }
        int text = Math.max(0, size - 5);
        byte[] length = varint(text);
        byte[] m = new byte[3 + length.length + text];
        m[0] = 0x08; // field 1, varint
        m[1] = (byte) n;
        m[2] = 0x12; // field 2, length-delimited
        System.arraycopy(length, 0, m, 3, length.length);
        Arrays.fill(m, 3 + length.length, m.length, (byte) 'x');
        return m;
    }

    /** The {@code n} of a {@link #message}: how many answers a Stream call asks for (0 if it has none). */
    public static int countOf(byte[] message) {
        return message.length >= 2 && message[0] == 0x08 ? message[1] & 0x7f : 0;
    }

    private static byte[] varint(int value) {
        byte[] out = new byte[5];
        int i = 0;
        while ((value & ~0x7f) != 0) {
            out[i++] = (byte) ((value & 0x7f) | 0x80);
            value >>>= 7;
        }
        out[i++] = (byte) value;
        return Arrays.copyOf(out, i);
    }

    /**
     * The service's schema as {@code protoc --include_imports --descriptor_set_out} writes it: the file
     * {@code sluice/lab/echo.proto} with {@code Msg} and {@code Echo}, for a {@code grpc-transcode} route.
     */
    public static byte[] descriptorSet() {
        DescriptorProtos.FileDescriptorProto file = DescriptorProtos.FileDescriptorProto.newBuilder()
                .setName("sluice/lab/echo.proto")
                .setPackage("sluice.lab")
                .setSyntax("proto3")
                .addMessageType(DescriptorProtos.DescriptorProto.newBuilder()
                        .setName("Msg")
                        .addField(field("n", 1, DescriptorProtos.FieldDescriptorProto.Type.TYPE_INT32))
                        .addField(field("text", 2, DescriptorProtos.FieldDescriptorProto.Type.TYPE_STRING)))
                .addService(DescriptorProtos.ServiceDescriptorProto.newBuilder()
                        .setName("Echo")
                        .addMethod(DescriptorProtos.MethodDescriptorProto.newBuilder()
                                .setName("Say")
                                .setInputType(".sluice.lab.Msg")
                                .setOutputType(".sluice.lab.Msg"))
                        .addMethod(DescriptorProtos.MethodDescriptorProto.newBuilder()
                                .setName("Stream")
                                .setInputType(".sluice.lab.Msg")
                                .setOutputType(".sluice.lab.Msg")
                                .setServerStreaming(true)))
                .build();
        return DescriptorProtos.FileDescriptorSet.newBuilder()
                .addFile(file)
                .build()
                .toByteArray();
    }

    private static DescriptorProtos.FieldDescriptorProto.Builder field(
            String name, int number, DescriptorProtos.FieldDescriptorProto.Type type) {
        return DescriptorProtos.FieldDescriptorProto.newBuilder()
                .setName(name)
                .setNumber(number)
                .setType(type)
                .setLabel(DescriptorProtos.FieldDescriptorProto.Label.LABEL_OPTIONAL)
                .setJsonName(name);
    }

    /** Starts the service on a free loopback port. */
    public static Server serve() {
        ServerServiceDefinition echo = ServerServiceDefinition.builder(SERVICE)
                .addMethod(SAY, ServerCalls.asyncUnaryCall((request, reply) -> {
                    reply.onNext(request);
                    reply.onCompleted();
                }))
                .addMethod(STREAM, ServerCalls.asyncServerStreamingCall((request, reply) -> {
                    for (int i = 0, n = countOf(request); i < n; i++) {
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
            byte[] request = message(messages, size);
            return callers("grpc-load-", concurrency, seconds, () -> {
                CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
                if (!stream) {
                    ClientCalls.blockingUnaryCall(channel, SAY, options, request);
                    return true;
                }
                Iterator<byte[]> it = ClientCalls.blockingServerStreamingCall(channel, STREAM, options, request);
                int got = 0;
                while (it.hasNext()) {
                    it.next();
                    got++;
                }
                return got == messages;
            });
        } finally {
            channel.shutdownNow();
            channel.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** One call, made whole: whether it answered as asked (false, or an exception: a failed call). */
    @FunctionalInterface
    interface Call {
        boolean make() throws Exception;
    }

    /**
     * {@code concurrency} platform threads named {@code name}N, each making {@code call} one after another
     * for {@code seconds}: the calls that succeeded, each one's latency, and the failures.
     */
    static Result callers(String name, int concurrency, double seconds, Call call) throws InterruptedException {
        long began = System.nanoTime();
        long end = began + (long) (seconds * 1e9);
        List<Thread> callers = new ArrayList<>();
        long[][] latencies = new long[concurrency][];
        long[] failures = new long[concurrency];
        for (int c = 0; c < concurrency; c++) {
            int me = c;
            callers.add(Thread.ofPlatform().name(name + c).start(() -> {
                long[] mine = new long[1024];
                int n = 0;
                while (System.nanoTime() < end && !Thread.currentThread().isInterrupted()) {
                    long t0 = System.nanoTime();
                    boolean ok;
                    try {
                        ok = call.make();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    } catch (Exception e) {
                        ok = false;
                    }
                    if (!ok) {
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
        long[] all =
                Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
        return new Result(all.length, Arrays.stream(failures).sum(), all, elapsed);
    }
}
