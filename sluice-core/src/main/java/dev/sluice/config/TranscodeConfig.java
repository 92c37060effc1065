package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import dev.sluice.transcode.TranscodeSchema;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A {@code grpc-transcode:} section: JSON clients reach the gRPC methods of a descriptor set.
 *
 * @param descriptors the descriptor set file ({@code protoc --include_imports --descriptor_set_out}),
 *     resolved against the configuration's directory; read again with every configuration load
 * @param services the services exposed, by full name ({@code shop.Shop})
 * @param method a method every request of the route calls ({@code shop.Shop/GetBook}) instead of the
 *     methods' {@code google.api.http} bindings
 * @param maxMessage the largest request body or response message, in bytes (default 4 MiB, gRPC's own
 *     default); a larger one is refused, never buffered
 * @param schema the loaded descriptor set
 */
public record TranscodeConfig(
        Path descriptors, List<String> services, Optional<String> method, int maxMessage, TranscodeSchema schema) {

    public static final int DEFAULT_MAX_MESSAGE = 4 * 1024 * 1024;

    public TranscodeConfig {
        requireNonNull(descriptors, "descriptors");
        services = List.copyOf(services);
        requireNonNull(method, "method");
        requireNonNull(schema, "schema");
        if (maxMessage < 1) {
            throw new IllegalArgumentException("maxMessage: " + maxMessage + " (expected: > 0)");
        }
    }
}
