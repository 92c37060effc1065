package dev.sluice.transcode;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Builds a transcoded call's gRPC request: the JSON body (all of it, or into the binding's body field),
 * then the query parameters, then the path variables, each into the method's request message (proto3
 * JSON mapping, {@link JsonFormat}), encoded as one length-prefixed gRPC message. A body that is not
 * JSON of the message, a query parameter that names no field, or a value of the wrong type is refused
 * as INVALID_ARGUMENT (HTTP 400) with the reason.
 */
public final class TranscodeRequest {

    /** The headers of every transcoded call upstream, beside {@code :path} = {@link #grpcPath}. */
    public static final String CONTENT_TYPE = "application/grpc";

    private static final JsonFormat.Parser PARSER = JsonFormat.parser();

    private TranscodeRequest() {}

    /**
     * The gRPC request bytes (one length-prefixed message) of a matched request.
     *
     * @param body the request's JSON body, empty when none; at most the configured bound (the engine
     *     refuses a longer body before calling this)
     * @param query the raw query string, without {@code ?}, or null
     */
    public static byte[] build(TranscodeSchema.Match match, String query, byte[] body) throws TranscodeException {
        TranscodeSchema.Binding binding = match.binding();
        Descriptor input = binding.method().getInputType();
        DynamicMessage.Builder message = DynamicMessage.newBuilder(input);
        String json = new String(body, StandardCharsets.UTF_8);
        if (!json.isBlank()) {
            if (binding.body().isEmpty()) {
                throw new TranscodeException(3, "this method takes no request body");
            }
            try {
                if (binding.body().equals("*")) {
                    PARSER.merge(json, message);
                } else {
                    FieldDescriptor field = input.findFieldByName(binding.body());
                    DynamicMessage.Builder sub = DynamicMessage.newBuilder(field.getMessageType());
                    PARSER.merge(json, sub);
                    message.setField(field, sub.build());
                }
            } catch (InvalidProtocolBufferException | RuntimeException e) {
                throw new TranscodeException(3, "bad JSON body: " + reason(e));
            }
        }
        if (query != null && !query.isEmpty()) {
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name = decodeQuery(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : decodeQuery(pair.substring(eq + 1));
                set(message, input, name, value, "query parameter");
            }
        }
        for (Map.Entry<String, String> variable : match.variables().entrySet()) {
            set(message, input, variable.getKey(), variable.getValue(), "path variable");
        }
        return frame(message.build().toByteArray());
    }

    /** One gRPC message: a 0 flag (not compressed), the 4-byte big-endian length, the bytes. */
    public static byte[] frame(byte[] message) {
        return ByteBuffer.allocate(5 + message.length)
                .put((byte) 0)
                .putInt(message.length)
                .put(message)
                .array();
    }

    private static String decodeQuery(String raw) throws TranscodeException {
        try {
            return URLDecoder.decode(raw, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new TranscodeException(3, "bad percent-encoding in the query");
        }
    }

    private static String reason(Exception e) {
        String message = e.getMessage();
        if (message == null) {
            return e.getClass().getSimpleName();
        }
        return message.length() > 200 ? message.substring(0, 200) + "…" : message;
    }

    private static void set(DynamicMessage.Builder message, Descriptor input, String path, String value, String what)
            throws TranscodeException {
        List<FieldDescriptor> fields;
        try {
            fields = TranscodeSchema.field(input, path, what);
        } catch (IllegalArgumentException e) {
            throw new TranscodeException(3, what + " '" + path + "' names no field of " + input.getFullName());
        }
        message.mergeFrom(nest(input, fields, 0, value, what, path));
    }

    /** A message of {@code type} with only the field path set to the value. */
    private static Message nest(
            Descriptor type, List<FieldDescriptor> fields, int at, String value, String what, String path)
            throws TranscodeException {
        DynamicMessage.Builder builder = DynamicMessage.newBuilder(type);
        FieldDescriptor field = fields.get(at);
        if (at < fields.size() - 1) {
            builder.setField(field, nest(field.getMessageType(), fields, at + 1, value, what, path));
            return builder.build();
        }
        Object scalar = scalar(field, value, what, path);
        if (field.isRepeated()) {
            builder.addRepeatedField(field, scalar);
        } else {
            builder.setField(field, scalar);
        }
        return builder.build();
    }

    private static Object scalar(FieldDescriptor field, String value, String what, String path)
            throws TranscodeException {
        try {
            return switch (field.getType()) {
                case STRING -> value;
                case BOOL ->
                    switch (value) {
                        case "true", "1" -> true;
                        case "false", "0" -> false;
                        default -> throw new NumberFormatException();
                    };
                case INT32, SINT32, SFIXED32 -> Integer.parseInt(value);
                case UINT32, FIXED32 -> Integer.parseUnsignedInt(value);
                case INT64, SINT64, SFIXED64 -> Long.parseLong(value);
                case UINT64, FIXED64 -> Long.parseUnsignedLong(value);
                case DOUBLE -> Double.parseDouble(value);
                case FLOAT -> Float.parseFloat(value);
                case BYTES ->
                    ByteString.copyFrom(
                            value.indexOf('-') >= 0 || value.indexOf('_') >= 0
                                    ? Base64.getUrlDecoder().decode(value)
                                    : Base64.getDecoder().decode(value));
                case ENUM -> {
                    EnumValueDescriptor named = field.getEnumType().findValueByName(value);
                    if (named != null) {
                        yield named;
                    }
                    EnumValueDescriptor numbered = field.getEnumType().findValueByNumber(Integer.parseInt(value));
                    if (numbered == null) {
                        throw new NumberFormatException();
                    }
                    yield numbered;
                }
                default ->
                    throw new TranscodeException(
                            3, what + " '" + path + "' names a message field (expected: a field path to a scalar)");
            };
        } catch (IllegalArgumentException e) {
            throw new TranscodeException(
                    3, what + " '" + path + "': not a " + field.getType().name().toLowerCase() + " value");
        }
    }
}
