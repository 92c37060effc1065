package dev.sluice.transcode;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodOptions;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.UnknownFieldSet;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * A small descriptor set built as protoc would from this .proto (the google.api.http options written as
 * their raw extension 72295728):
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
 */
public final class ShopDescriptors {

    private ShopDescriptors() {}

    /** The shop service's schema, as the transcoding tests compile it. */
    public static TranscodeSchema schema() {
        return TranscodeSchema.of(set(), java.util.List.of("shop.Shop"));
    }

    /** A {@code grpc-transcode} section over {@code schema}: every shop method, 1 KiB messages. */
    public static dev.sluice.config.TranscodeConfig config(TranscodeSchema schema) {
        return new dev.sluice.config.TranscodeConfig(
                java.nio.file.Path.of("shop.pb"),
                java.util.List.of("shop.Shop"),
                java.util.Optional.empty(),
                1024,
                schema);
    }

    /** A {@code GetBook} answer message of book {@code id}, framed as on the wire. */
    public static byte[] book(TranscodeSchema schema, long id) {
        var type = schema.method("shop.Shop/GetBook").orElseThrow().getOutputType();
        return TranscodeRequest.frame(com.google.protobuf.DynamicMessage.newBuilder(type)
                .setField(type.findFieldByName("id"), id)
                .build()
                .toByteArray());
    }

    public static FileDescriptorSet set() {
        return set("/v1/shelves/{shelf}/books/{id}");
    }

    /** The set with GetBook's template replaced (to test refusals). */
    public static FileDescriptorSet set(String getBookTemplate) {
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
                        .addMethod(method("GetBook", "GetBookRequest", "Book", false, 2, getBookTemplate, ""))
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
                                        TranscodeSchema.HTTP_EXTENSION,
                                        UnknownFieldSet.Field.newBuilder()
                                                .addLengthDelimited(httpRule(verbField, template, body))
                                                .build())
                                .build()));
    }

    /** A google.api.HttpRule: the verb's field (2 get … 6 patch) with the template, and field 7 body. */
    static ByteString httpRule(int verbField, String template, String body) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            com.google.protobuf.CodedOutputStream out = com.google.protobuf.CodedOutputStream.newInstance(bytes);
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
}
