package dev.sluice.config;

import dev.sluice.transcode.TranscodeSchema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Binds a {@code grpc-transcode:} section, loading its descriptor set so that {@code sluice check}
 * refuses, by path, a missing or corrupt file, an unknown service or method, and a bad {@code
 * google.api.http} template or body field ({@code routes[0].proxy.grpc-transcode.descriptors}).
 */
final class TranscodeBinder {

    private static final String SERVICE_EXPECTED = "a service's full name such as shop.Shop";

    private final Path base;
    private final List<Problem> problems;

    TranscodeBinder(Path base, List<Problem> problems) {
        this.base = base;
        this.problems = problems;
    }

    Optional<TranscodeConfig> transcode(Object body, String path) {
        Optional<Mapping> section = Mapping.of(body, path, "a mapping with descriptors and services", problems);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        int before = problems.size();
        m.allowOnly("descriptors", "services", "method", "max-message");
        Optional<String> file = m.requiredString("descriptors", "a descriptor set file such as api.pb");
        List<String> services = new ArrayList<>();
        if (m.require("services", "a list of " + SERVICE_EXPECTED)) {
            List<?> items = m.list("services", "a list of " + SERVICE_EXPECTED).orElse(List.of());
            if (items.isEmpty()) {
                m.problem("services", "[] (expected: a list of " + SERVICE_EXPECTED + ")");
            }
            for (int i = 0; i < items.size(); i++) {
                if (items.get(i) instanceof String s && !s.isBlank()) {
                    services.add(s);
                } else {
                    m.problem(
                            "services[" + i + "]",
                            Mapping.describe(items.get(i)) + " (expected: " + SERVICE_EXPECTED + ")");
                }
            }
        }
        Optional<String> method = m.string("method", "a method such as shop.Shop/GetBook");
        long maxMessage =
                m.longSize("max-message", TranscodeConfig.DEFAULT_MAX_MESSAGE, 1, "a size such as 4MiB, at most 2GiB");
        if (maxMessage > Integer.MAX_VALUE - 5) {
            m.problem("max-message", maxMessage + " (expected: a size such as 4MiB, at most 2GiB)");
        }
        if (problems.size() != before || file.isEmpty()) {
            return Optional.empty();
        }
        Path descriptors = base.resolve(file.get());
        TranscodeSchema schema;
        try {
            schema = TranscodeSchema.load(descriptors, services);
        } catch (IllegalArgumentException e) {
            String key = e.getMessage().startsWith("unknown service") ? "services" : "descriptors";
            m.problem(key, e.getMessage());
            return Optional.empty();
        }
        if (method.isPresent() && schema.method(method.get()).isEmpty()) {
            m.problem(
                    "method",
                    "'" + method.get() + "' is not a method of " + services + " (expected: package.Service/Method)");
            return Optional.empty();
        }
        return Optional.of(new TranscodeConfig(descriptors, services, method, (int) maxMessage, schema));
    }
}
