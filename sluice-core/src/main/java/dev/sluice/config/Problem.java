package dev.sluice.config;

import static java.util.Objects.requireNonNull;

/**
 * One thing wrong with a configuration file.
 *
 * @param path where, such as {@code routes[1].compose.parts.route.upstream}, {@code server.port} or
 *     {@code (yaml)} for a syntax error
 * @param message what is wrong, naming the value and the expectation
 */
public record Problem(String path, String message) {
    public Problem {
        requireNonNull(path, "path");
        requireNonNull(message, "message");
    }

    @Override
    public String toString() {
        return path + ": " + message;
    }
}
