package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import dev.sluice.routing.PathRewrite;
import dev.sluice.routing.PathTemplate;
import java.time.Duration;
import java.util.Optional;

/**
 * Reverse proxy to one upstream, bodies streamed both ways.
 *
 * <p>The upstream path is, in order of precedence: {@code path} expanded with the path variables,
 * query parameters and {@code {**}} (the wildcard remainder); else the request path rewritten by
 * {@code rewrite}; else the request path with {@code strip-prefix} removed; else the request path.
 * The client's query string is kept in the last three cases. The upstream's base path is prefixed in
 * every case.
 *
 * @param timeout optional bound on the whole exchange (beyond the upstream's read timeout) → 504
 * @param rewrite optional regex rewrite of the request path ({@link PathRewrite})
 * @param preserveHost the client's {@code Host} goes upstream instead of the upstream's own
 * @param backends several upstreams sharing the traffic by weight; {@code upstream} is then the
 *     first of them, and each side runs as {@link #side} of it
 * @param mirror a copy of a share of the requests to another upstream ({@link MirrorConfig})
 * @param transcode JSON clients call the upstream's gRPC methods ({@link TranscodeConfig}, {@code
 *     grpc-transcode:}); the upstream path is then the method's, never the request's
 */
public record ProxyTarget(
        String upstream,
        Optional<String> stripPrefix,
        Optional<PathTemplate> path,
        Optional<Duration> timeout,
        Optional<PathRewrite> rewrite,
        boolean preserveHost,
        Optional<Backends> backends,
        Optional<MirrorConfig> mirror,
        Optional<TranscodeConfig> transcode)
        implements Target {
    public ProxyTarget {
        requireNonNull(upstream, "upstream");
        requireNonNull(stripPrefix, "stripPrefix");
        requireNonNull(path, "path");
        requireNonNull(timeout, "timeout");
        requireNonNull(rewrite, "rewrite");
        requireNonNull(backends, "backends");
        requireNonNull(mirror, "mirror");
        requireNonNull(transcode, "transcode");
        if (backends.isPresent()
                && !backends.get().sides().getFirst().upstream().equals(upstream)) {
            throw new IllegalArgumentException("upstream: " + upstream + " (expected: the first backend's)");
        }
    }

    /** A target without transcoding. */
    public ProxyTarget(
            String upstream,
            Optional<String> stripPrefix,
            Optional<PathTemplate> path,
            Optional<Duration> timeout,
            Optional<PathRewrite> rewrite,
            boolean preserveHost,
            Optional<Backends> backends,
            Optional<MirrorConfig> mirror) {
        this(upstream, stripPrefix, path, timeout, rewrite, preserveHost, backends, mirror, Optional.empty());
    }

    /** A target to one upstream, without backends. */
    public ProxyTarget(
            String upstream,
            Optional<String> stripPrefix,
            Optional<PathTemplate> path,
            Optional<Duration> timeout,
            Optional<PathRewrite> rewrite,
            boolean preserveHost) {
        this(upstream, stripPrefix, path, timeout, rewrite, preserveHost, Optional.empty(), Optional.empty());
    }

    /**
     * This target to one upstream, without backends or mirror: what an engine runs for the side a
     * request was given, or beside a mirror.
     */
    public ProxyTarget side(String backend) {
        return new ProxyTarget(
                backend,
                stripPrefix,
                path,
                timeout,
                rewrite,
                preserveHost,
                Optional.empty(),
                Optional.empty(),
                transcode);
    }

    /** A target without rewrite or preserve-host. */
    public ProxyTarget(
            String upstream, Optional<String> stripPrefix, Optional<PathTemplate> path, Optional<Duration> timeout) {
        this(upstream, stripPrefix, path, timeout, Optional.empty(), false);
    }

    public static ProxyTarget to(String upstream) {
        return new ProxyTarget(upstream, Optional.empty(), Optional.empty(), Optional.empty());
    }
}
