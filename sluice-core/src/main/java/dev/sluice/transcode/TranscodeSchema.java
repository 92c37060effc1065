package dev.sluice.transcode;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The methods a {@code grpc-transcode} section exposes, from a descriptor set ({@code protoc
 * --include_imports --descriptor_set_out}) and the services it names: each method with the HTTP
 * bindings of its {@code google.api.http} annotation (read from the method's options as the raw
 * extension 72295728, so no generated classes are needed). Built once per configuration load; a
 * request is matched against the bindings in declaration order.
 */
public final class TranscodeSchema {

    /** The field number of the {@code google.api.http} extension of {@code MethodOptions}. */
    static final int HTTP_EXTENSION = 72295728;

    /** A method reachable by an HTTP verb and path template, with where the JSON body goes. */
    public record Binding(String verb, HttpTemplate template, String body, MethodDescriptor method) {

        /** The gRPC path of the method: {@code /package.Service/Method}. */
        public String grpcPath() {
            return "/" + method.getService().getFullName() + "/" + method.getName();
        }
    }

    /** A request matched to a binding, with the path variables it bound. */
    public record Match(Binding binding, Map<String, String> variables) {}

    private final List<Binding> bindings;
    private final Map<String, MethodDescriptor> methods;

    private TranscodeSchema(List<Binding> bindings, Map<String, MethodDescriptor> methods) {
        this.bindings = List.copyOf(bindings);
        this.methods = Map.copyOf(methods);
    }

    /**
     * Loads a descriptor set file and the named services, or throws IllegalArgumentException saying
     * what is wrong (missing or corrupt file, unknown service, bad template or body field).
     */
    public static TranscodeSchema load(Path file, List<String> services) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read descriptor set " + file + ": " + e.getMessage());
        }
        FileDescriptorSet set;
        try {
            set = FileDescriptorSet.parseFrom(bytes);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "not a descriptor set (protoc --include_imports" + " --descriptor_set_out): " + file);
        }
        return of(set, services);
    }

    /** The schema of an in-memory descriptor set (see {@link #load}). */
    public static TranscodeSchema of(FileDescriptorSet set, List<String> services) {
        Map<String, FileDescriptorProto> protos = new HashMap<>();
        for (FileDescriptorProto proto : set.getFileList()) {
            protos.put(proto.getName(), proto);
        }
        Map<String, FileDescriptor> built = new HashMap<>();
        Map<String, ServiceDescriptor> byName = new HashMap<>();
        Map<String, ServiceDescriptorProto> rawByName = new HashMap<>();
        for (FileDescriptorProto proto : set.getFileList()) {
            FileDescriptor file = build(proto.getName(), protos, built, new ArrayList<>());
            for (int i = 0; i < file.getServices().size(); i++) {
                ServiceDescriptor service = file.getServices().get(i);
                byName.put(service.getFullName(), service);
                rawByName.put(service.getFullName(), proto.getService(i));
            }
        }
        if (services.isEmpty()) {
            throw new IllegalArgumentException("no services named (expected: services: [package.Service])");
        }
        List<Binding> bindings = new ArrayList<>();
        Map<String, MethodDescriptor> methods = new HashMap<>();
        for (String name : services) {
            ServiceDescriptor service = byName.get(name);
            if (service == null) {
                throw new IllegalArgumentException("unknown service '" + name + "' (the descriptor set has: "
                        + byName.keySet().stream().sorted().toList() + ")");
            }
            ServiceDescriptorProto raw = rawByName.get(name);
            for (int i = 0; i < service.getMethods().size(); i++) {
                MethodDescriptor method = service.getMethods().get(i);
                methods.put(service.getFullName() + "/" + method.getName(), method);
                if (method.isClientStreaming()) {
                    continue;
                }
                MethodDescriptorProto rawMethod = raw.getMethod(i);
                for (ByteString rule : rawMethod
                        .getOptions()
                        .getUnknownFields()
                        .getField(HTTP_EXTENSION)
                        .getLengthDelimitedList()) {
                    rules(rule, method, bindings, 0);
                }
            }
        }
        return new TranscodeSchema(bindings, methods);
    }

    private static FileDescriptor build(
            String name,
            Map<String, FileDescriptorProto> protos,
            Map<String, FileDescriptor> built,
            List<String> path) {
        FileDescriptor done = built.get(name);
        if (done != null) {
            return done;
        }
        FileDescriptorProto proto = protos.get(name);
        if (proto == null) {
            throw new IllegalArgumentException(
                    "the descriptor set lacks " + name + " (make it with protoc --include_imports)");
        }
        if (path.contains(name)) {
            throw new IllegalArgumentException("import cycle through " + name);
        }
        path.add(name);
        List<FileDescriptor> deps = new ArrayList<>();
        for (String dep : proto.getDependencyList()) {
            deps.add(build(dep, protos, built, path));
        }
        path.removeLast();
        try {
            FileDescriptor file = FileDescriptor.buildFrom(proto, deps.toArray(FileDescriptor[]::new));
            built.put(name, file);
            return file;
        } catch (Descriptors.DescriptorValidationException e) {
            throw new IllegalArgumentException("invalid descriptor " + name + ": " + e.getMessage());
        }
    }

    /** Reads one {@code google.api.HttpRule} (and its additional bindings) into bindings. */
    private static void rules(ByteString bytes, MethodDescriptor method, List<Binding> bindings, int depth) {
        String verb = null;
        String template = null;
        String body = "";
        List<ByteString> additional = new ArrayList<>();
        try {
            CodedInputStream in = bytes.newCodedInput();
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                int field = tag >>> 3;
                switch (field) {
                    case 2, 3, 4, 5, 6 -> {
                        verb = switch (field) {
                            case 2 -> "GET";
                            case 3 -> "PUT";
                            case 4 -> "POST";
                            case 5 -> "DELETE";
                            default -> "PATCH";
                        };
                        template = in.readStringRequireUtf8();
                    }
                    case 7 -> body = in.readStringRequireUtf8();
                    case 8 -> {
                        CodedInputStream custom = in.readBytes().newCodedInput();
                        for (int t = custom.readTag(); t != 0; t = custom.readTag()) {
                            if (t >>> 3 == 1) {
                                verb = custom.readStringRequireUtf8().toUpperCase(Locale.ROOT);
                            } else if (t >>> 3 == 2) {
                                template = custom.readStringRequireUtf8();
                            } else {
                                custom.skipField(t);
                            }
                        }
                    }
                    case 11 -> additional.add(in.readBytes());
                    default -> in.skipField(tag);
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("corrupt google.api.http option on " + method.getFullName());
        }
        String where = method.getFullName() + " (google.api.http)";
        if (template == null) {
            throw new IllegalArgumentException(where + ": no verb and path");
        }
        HttpTemplate parsed;
        try {
            parsed = HttpTemplate.parse(template);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage());
        }
        Descriptor input = method.getInputType();
        for (String variable : parsed.variables()) {
            field(input, variable, where);
        }
        if (!body.isEmpty() && !body.equals("*")) {
            FieldDescriptor field = input.findFieldByName(body);
            if (field == null || field.getJavaType() != FieldDescriptor.JavaType.MESSAGE || field.isRepeated()) {
                throw new IllegalArgumentException(where + ": body '" + body + "' is not a message field of "
                        + input.getFullName() + " (expected: '*' or a singular message field)");
            }
        }
        bindings.add(new Binding(verb, parsed, body, method));
        if (depth == 0) {
            for (ByteString extra : additional) {
                rules(extra, method, bindings, 1);
            }
        }
    }

    /** The field a dot-joined field path names in a message type, or throws saying which part is unknown. */
    static List<FieldDescriptor> field(Descriptor type, String path, String where) {
        List<FieldDescriptor> fields = new ArrayList<>();
        Descriptor current = type;
        for (String name : path.split("\\.", -1)) {
            if (current == null) {
                throw new IllegalArgumentException(where + ": '" + path + "' goes into a field that is not a message");
            }
            FieldDescriptor field = current.findFieldByName(name);
            if (field == null) {
                throw new IllegalArgumentException(where + ": no field '" + path + "' in " + type.getFullName());
            }
            fields.add(field);
            current = field.getJavaType() == FieldDescriptor.JavaType.MESSAGE && !field.isRepeated()
                    ? field.getMessageType()
                    : null;
        }
        return fields;
    }

    /** The first binding of this verb whose template matches the path (without its query). */
    public Optional<Match> match(String verb, String path) {
        for (Binding binding : bindings) {
            if (!binding.verb().equals(verb)) {
                continue;
            }
            Optional<Map<String, String>> variables = binding.template().match(path);
            if (variables.isPresent()) {
                return Optional.of(new Match(binding, variables.get()));
            }
        }
        return Optional.empty();
    }

    /** A method by {@code package.Service/Method}, for a route that names one. */
    public Optional<MethodDescriptor> method(String name) {
        return Optional.ofNullable(methods.get(name));
    }

    public List<Binding> bindings() {
        return bindings;
    }
}
