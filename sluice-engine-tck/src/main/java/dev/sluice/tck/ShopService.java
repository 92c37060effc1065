package dev.sluice.tck;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodOptions;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.UnknownFieldSet;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A real gRPC service for transcoding (grpc-java over its own Netty, plaintext h2c on loopback port 0)
 * whose messages are {@link DynamicMessage}s of a descriptor set built here as protoc would build it
 * ({@code protoc --include_imports --descriptor_set_out}) from this .proto:
 *
 * <pre>
 * package shop;
 * message Book { int64 id = 1; string title = 2; repeated string tags = 3; }
 * message GetBookRequest { string shelf = 1; int64 id = 2; string lang = 3; }
 * message CreateBookRequest { string shelf = 1; Book book = 2; }
 * message ListBooksRequest { string shelf = 1; int32 limit = 2; }
 * service Shop {
 *   rpc GetBook(GetBookRequest) returns (Book) { option (google.api.http) = { get: "/v1/shelves/{shelf}/books/{id}" }; }
 *   rpc CreateBook(CreateBookRequest) returns (Book) { option (google.api.http) = { post: "/v1/shelves/{shelf}/books" body: "book" }; }
 *   rpc ListBooks(ListBooksRequest) returns (stream Book) { option (google.api.http) = { get: "/v1/shelves/{shelf}/books" }; }
 * }
 * </pre>
 *
 * GetBook answers book {@code id} titled {@code shelf/lang}, or NOT_FOUND "no book 404" for id 404;
 * CreateBook answers the book with {@code tags: [shelf]}; ListBooks sends book 1, then, once {@link
 * #firstSeen} is counted down (the client has read the first element), books 2 … limit; on shelf
 * {@code broken} it fails with DATA_LOSS after book 1, on shelf {@code late-break} once {@link #firstSeen}
 * is counted down.
 */
public final class ShopService implements AutoCloseable {

    public static final String SERVICE = "shop.Shop";

    private static final int HTTP_EXTENSION = 72295728; // google.api.http on MethodOptions

    private final Descriptors.FileDescriptor file;
    private final Server server;
    private volatile CountDownLatch firstSeen = new CountDownLatch(1);
    private volatile String lastTenant = "";
    private volatile long lastDeadlineNanos = -1; // -1: the last call had no deadline
    private volatile CountDownLatch cancelled = new CountDownLatch(1);

    /** A call's metadata the service records ({@link #lastTenant}). */
    public static final io.grpc.Metadata.Key<String> TENANT =
            io.grpc.Metadata.Key.of("x-tenant", io.grpc.Metadata.ASCII_STRING_MARSHALLER);

    private ShopService(Descriptors.FileDescriptor file, Server server) {
        this.file = file;
        this.server = server;
    }

    /** The descriptor set, as protoc writes it. */
    public static FileDescriptorSet descriptors() {
        FileDescriptorProto file = FileDescriptorProto.newBuilder()
                .setName("shop.proto")
                .setPackage("shop")
                .setSyntax("proto3")
                .addMessageType(message(
                                "Book",
                                field("id", 1, FieldDescriptorProto.Type.TYPE_INT64),
                                field("title", 2, FieldDescriptorProto.Type.TYPE_STRING))
                        .addField(field("tags", 3, FieldDescriptorProto.Type.TYPE_STRING)
                                .setLabel(FieldDescriptorProto.Label.LABEL_REPEATED)))
                .addMessageType(message(
                        "GetBookRequest",
                        field("shelf", 1, FieldDescriptorProto.Type.TYPE_STRING),
                        field("id", 2, FieldDescriptorProto.Type.TYPE_INT64),
                        field("lang", 3, FieldDescriptorProto.Type.TYPE_STRING)))
                .addMessageType(message(
                        "CreateBookRequest",
                        field("shelf", 1, FieldDescriptorProto.Type.TYPE_STRING),
                        field("book", 2, FieldDescriptorProto.Type.TYPE_MESSAGE).setTypeName(".shop.Book")))
                .addMessageType(message(
                        "ListBooksRequest",
                        field("shelf", 1, FieldDescriptorProto.Type.TYPE_STRING),
                        field("limit", 2, FieldDescriptorProto.Type.TYPE_INT32)))
                .addService(ServiceDescriptorProto.newBuilder()
                        .setName("Shop")
                        .addMethod(method(
                                "GetBook", "GetBookRequest", "Book", false, 2, "/v1/shelves/{shelf}/books/{id}", ""))
                        .addMethod(method(
                                "CreateBook",
                                "CreateBookRequest",
                                "Book",
                                false,
                                4,
                                "/v1/shelves/{shelf}/books",
                                "book"))
                        .addMethod(method(
                                "ListBooks", "ListBooksRequest", "Book", true, 2, "/v1/shelves/{shelf}/books", "")))
                .build();
        return FileDescriptorSet.newBuilder().addFile(file).build();
    }

    /** Writes the descriptor set to {@code file} (what {@code --descriptor_set_out} writes). */
    public static Path write(Path file) throws IOException {
        Files.write(file, descriptors().toByteArray());
        return file;
    }

    public static ShopService start() {
        Descriptors.FileDescriptor file;
        try {
            file = Descriptors.FileDescriptor.buildFrom(descriptors().getFile(0), new Descriptors.FileDescriptor[0]);
        } catch (Descriptors.DescriptorValidationException e) {
            throw new IllegalStateException(e);
        }
        Descriptors.ServiceDescriptor shop = file.findServiceByName("Shop");
        Descriptors.Descriptor book = file.findMessageTypeByName("Book");
        ShopService[] self = new ShopService[1];
        ServerServiceDefinition definition = ServerServiceDefinition.builder(SERVICE)
                .addMethod(
                        grpcMethod(shop.findMethodByName("GetBook"), MethodDescriptor.MethodType.UNARY),
                        ServerCalls.asyncUnaryCall((request, reply) -> {
                            long id = (Long) field(request, "id");
                            if (id == 404) {
                                reply.onError(Status.NOT_FOUND
                                        .withDescription("no book 404")
                                        .asRuntimeException());
                                return;
                            }
                            reply.onNext(book(book, id, field(request, "shelf") + "/" + field(request, "lang")));
                            reply.onCompleted();
                        }))
                .addMethod(
                        grpcMethod(shop.findMethodByName("CreateBook"), MethodDescriptor.MethodType.UNARY),
                        ServerCalls.asyncUnaryCall((request, reply) -> {
                            DynamicMessage given = (DynamicMessage) field(request, "book");
                            reply.onNext(given.toBuilder()
                                    .addRepeatedField(book.findFieldByName("tags"), field(request, "shelf"))
                                    .build());
                            reply.onCompleted();
                        }))
                .addMethod(
                        grpcMethod(shop.findMethodByName("ListBooks"), MethodDescriptor.MethodType.SERVER_STREAMING),
                        ServerCalls.asyncServerStreamingCall((request, reply) -> {
                            int limit = (Integer) field(request, "limit");
                            String shelf = (String) field(request, "shelf");
                            io.grpc.Context.current()
                                    .addListener(
                                            context -> { // not the call's own end or error
                                                // by its client's reset, or by the deadline that client
                                                // sent (grpc-timeout), whichever comes first: the two
                                                // fall due together when the gateway's timeout ends it
                                                Throwable cause = context.cancellationCause();
                                                Status.Code code = cause == null
                                                        ? Status.Code.OK
                                                        : Status.fromThrowable(cause)
                                                                .getCode();
                                                if (code == Status.Code.CANCELLED
                                                        || code == Status.Code.DEADLINE_EXCEEDED
                                                        // the server's own deadline cancels the context
                                                        // with a TimeoutException, which no status names
                                                        || cause instanceof java.util.concurrent.TimeoutException) {
                                                    self[0].cancelled.countDown();
                                                }
                                            },
                                            Runnable::run);
                            reply.onNext(book(book, 1, shelf));
                            if (shelf.equals("broken")) {
                                reply.onError(Status.DATA_LOSS
                                        .withDescription("the shelf broke")
                                        .asRuntimeException());
                                return;
                            }
                            try {
                                if (limit > 1 && !self[0].firstSeen.await(20, TimeUnit.SECONDS)) {
                                    reply.onError(Status.ABORTED
                                            .withDescription("the first element never reached the client")
                                            .asRuntimeException());
                                    return;
                                }
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            if (shelf.equals("late-break")) { // fails once the client has the first element
                                reply.onError(Status.DATA_LOSS
                                        .withDescription("the shelf broke")
                                        .asRuntimeException());
                                return;
                            }
                            for (int i = 2; i <= limit; i++) {
                                reply.onNext(book(book, i, shelf));
                            }
                            reply.onCompleted();
                        }))
                .build();
        try {
            Server server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .addService(io.grpc.ServerInterceptors.intercept(definition, new io.grpc.ServerInterceptor() {
                        @Override
                        public <Q, A> io.grpc.ServerCall.Listener<Q> interceptCall(
                                io.grpc.ServerCall<Q, A> call,
                                io.grpc.Metadata headers,
                                io.grpc.ServerCallHandler<Q, A> next) {
                            String tenant = headers.get(TENANT);
                            self[0].lastTenant = tenant == null ? "" : tenant;
                            io.grpc.Deadline deadline =
                                    io.grpc.Context.current().getDeadline();
                            self[0].lastDeadlineNanos =
                                    deadline == null ? -1 : Math.max(0, deadline.timeRemaining(TimeUnit.NANOSECONDS));
                            return next.startCall(call, headers);
                        }
                    }))
                    .build()
                    .start();
            self[0] = new ShopService(file, server);
            return self[0];
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The {@code x-tenant} metadata of the last call ("" when it had none). */
    public String lastTenant() {
        return lastTenant;
    }

    /** What was left of the last call's deadline ({@code grpc-timeout}) as it began, or empty without one. */
    public java.util.Optional<java.time.Duration> lastDeadline() {
        long nanos = lastDeadlineNanos;
        return nanos < 0 ? java.util.Optional.empty() : java.util.Optional.of(java.time.Duration.ofNanos(nanos));
    }

    /** Lets a waiting ListBooks go on past its first book. */
    public void firstSeen() {
        firstSeen.countDown();
    }

    /** ListBooks waits again for the next {@link #firstSeen()}; {@link #awaitCancelled} waits for a new cancel. */
    public void rearm() {
        firstSeen = new CountDownLatch(1);
        cancelled = new CountDownLatch(1);
    }

    /**
     * Waits (at most 10 s) until a ListBooks call since the last {@link #rearm()} was cancelled by its
     * client: reset, or ended by the deadline the client gave it ({@code grpc-timeout}).
     */
    public boolean awaitCancelled() throws InterruptedException {
        return cancelled.await(10, TimeUnit.SECONDS);
    }

    /** Its URL, for an upstream of {@code protocol: h2c}. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getPort());
    }

    public Descriptors.FileDescriptor file() {
        return file;
    }

    private static Object field(DynamicMessage message, String name) {
        return message.getField(message.getDescriptorForType().findFieldByName(name));
    }

    private static DynamicMessage book(Descriptors.Descriptor type, long id, String title) {
        return DynamicMessage.newBuilder(type)
                .setField(type.findFieldByName("id"), id)
                .setField(type.findFieldByName("title"), title)
                .build();
    }

    private static MethodDescriptor<DynamicMessage, DynamicMessage> grpcMethod(
            Descriptors.MethodDescriptor method, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<DynamicMessage, DynamicMessage>newBuilder()
                .setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, method.getName()))
                .setRequestMarshaller(marshaller(method.getInputType()))
                .setResponseMarshaller(marshaller(method.getOutputType()))
                .build();
    }

    /** DynamicMessages of {@code type} on the wire. */
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

    private static DescriptorProto.Builder message(String name, FieldDescriptorProto.Builder... fields) {
        DescriptorProto.Builder b = DescriptorProto.newBuilder().setName(name);
        for (FieldDescriptorProto.Builder f : fields) {
            b.addField(f);
        }
        return b;
    }

    private static FieldDescriptorProto.Builder field(String name, int number, FieldDescriptorProto.Type type) {
        return FieldDescriptorProto.newBuilder()
                .setName(name)
                .setNumber(number)
                .setType(type)
                .setJsonName(name)
                .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL);
    }

    private static MethodDescriptorProto.Builder method(
            String name, String in, String out, boolean serverStreaming, int verbField, String template, String body) {
        return MethodDescriptorProto.newBuilder()
                .setName(name)
                .setInputType(".shop." + in)
                .setOutputType(".shop." + out)
                .setServerStreaming(serverStreaming)
                .setOptions(MethodOptions.newBuilder()
                        .setUnknownFields(UnknownFieldSet.newBuilder()
                                .addField(
                                        HTTP_EXTENSION,
                                        UnknownFieldSet.Field.newBuilder()
                                                .addLengthDelimited(httpRule(verbField, template, body))
                                                .build())
                                .build()));
    }

    /** A google.api.HttpRule: the verb's field (2 get … 6 patch) with the template, and field 7 body. */
    private static ByteString httpRule(int verbField, String template, String body) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            out.writeString(verbField, template);
            if (!body.isEmpty()) {
                out.writeString(7, body);
            }
            out.flush();
            return ByteString.copyFrom(bytes.toByteArray());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
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
