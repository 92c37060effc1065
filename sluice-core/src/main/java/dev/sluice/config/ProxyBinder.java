package dev.sluice.config;

import dev.sluice.routing.PathRewrite;
import java.util.List;
import java.util.Optional;

/** Binds the traffic keys of a route's {@code proxy:}: {@code rewrite}. */
final class ProxyBinder {

    private ProxyBinder() {}

    /** {@code rewrite: {regex, replacement}}, compiled once; its groups checked against the replacement. */
    static Optional<PathRewrite> rewrite(Mapping proxy, List<Problem> problems) {
        if (!proxy.has("rewrite")) {
            return Optional.empty();
        }
        Optional<Mapping> section = proxy.mapping(
                "rewrite",
                "a mapping with regex and replacement, such as {regex: \"^/api/(.*)\", replacement: \"/v2/$1\"}");
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("regex", "replacement");
        Optional<String> regex = m.requiredString("regex", "a Java regular expression such as ^/api/(.*)");
        Optional<String> replacement = m.require("replacement", "a path such as /v2/$1")
                ? m.string("replacement", "a path such as /v2/$1")
                : Optional.empty();
        if (regex.isEmpty() || replacement.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(PathRewrite.of(regex.get(), replacement.get()));
        } catch (IllegalArgumentException e) {
            String key = e.getMessage().startsWith("'" + regex.get() + "' is not") ? "regex" : "replacement";
            m.problem(key, e.getMessage());
            return Optional.empty();
        }
    }
}
