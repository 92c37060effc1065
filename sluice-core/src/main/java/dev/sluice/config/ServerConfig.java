package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Optional;

/**
 * The listening side of the gateway.
 *
 * @param host bind address (default {@code 0.0.0.0})
 * @param port listening port (default 8080; 0 picks a free one)
 * @param engine engine mode (default {@link EngineMode#REACTIVE}: README, "Why reactive is the default")
 * @param platformThreads request threads in {@code platform} mode (default 200, like Tomcat)
 * @param fanoutThreads threads for composition parts in {@code platform} mode (default 200)
 * @param shutdownGrace how long in-flight requests may finish on stop (default 5s)
 * @param readAhead bytes a composition part may read ahead of the client while another part is being
 *     relayed (default 16384); bounds memory per request
 * @param transport the socket transport (default {@link Transport#AUTO}: io_uring for {@code
 *     reactive} where the kernel allows it, NIO otherwise)
 * @param limits what one client may take: sizes, timeouts, connections, requests in flight
 * @param tls TLS on the listener, when configured ({@code server.tls}); plain HTTP otherwise
 * @param http2 HTTP/2 on the listener ({@code server.http2}): h2 with TLS, h2c without
 * @param responseRequestId whether every answer carries the exchange's {@code X-Request-Id}
 *     ({@code server.request-id.response}, default true; {@code dev.sluice.http.RequestId#onAnswer})
 */
public record ServerConfig(
        String host,
        int port,
        EngineMode engine,
        int platformThreads,
        int fanoutThreads,
        Duration shutdownGrace,
        int readAhead,
        Transport transport,
        ServerLimits limits,
        Optional<TlsConfig> tls,
        Http2Settings http2,
        boolean responseRequestId) {

    public static final int DEFAULT_PORT = 8080;

    public ServerConfig {
        requireNonNull(host, "host");
        requireNonNull(engine, "engine");
        requireNonNull(shutdownGrace, "shutdownGrace");
        requireNonNull(transport, "transport");
        requireNonNull(limits, "limits");
        requireNonNull(tls, "tls");
        requireNonNull(http2, "http2");
    }

    /** A server whose answers carry their {@code X-Request-Id}. */
    public ServerConfig(
            String host,
            int port,
            EngineMode engine,
            int platformThreads,
            int fanoutThreads,
            Duration shutdownGrace,
            int readAhead,
            Transport transport,
            ServerLimits limits,
            Optional<TlsConfig> tls,
            Http2Settings http2) {
        this(
                host,
                port,
                engine,
                platformThreads,
                fanoutThreads,
                shutdownGrace,
                readAhead,
                transport,
                limits,
                tls,
                http2,
                true);
    }

    /** A server with HTTP/2's defaults ({@link Http2Settings#defaults()}). */
    public ServerConfig(
            String host,
            int port,
            EngineMode engine,
            int platformThreads,
            int fanoutThreads,
            Duration shutdownGrace,
            int readAhead,
            Transport transport,
            ServerLimits limits,
            Optional<TlsConfig> tls) {
        this(
                host,
                port,
                engine,
                platformThreads,
                fanoutThreads,
                shutdownGrace,
                readAhead,
                transport,
                limits,
                tls,
                Http2Settings.defaults());
    }

    /** A plain-HTTP server. */
    public ServerConfig(
            String host,
            int port,
            EngineMode engine,
            int platformThreads,
            int fanoutThreads,
            Duration shutdownGrace,
            int readAhead,
            Transport transport,
            ServerLimits limits) {
        this(
                host,
                port,
                engine,
                platformThreads,
                fanoutThreads,
                shutdownGrace,
                readAhead,
                transport,
                limits,
                Optional.empty());
    }

    /** A server with the default {@link ServerLimits}. */
    public ServerConfig(
            String host,
            int port,
            EngineMode engine,
            int platformThreads,
            int fanoutThreads,
            Duration shutdownGrace,
            int readAhead,
            Transport transport) {
        this(
                host,
                port,
                engine,
                platformThreads,
                fanoutThreads,
                shutdownGrace,
                readAhead,
                transport,
                ServerLimits.defaults());
    }

    public static ServerConfig defaults() {
        return new ServerConfig(
                "0.0.0.0", DEFAULT_PORT, EngineMode.REACTIVE, 200, 200, Duration.ofSeconds(5), 16384, Transport.AUTO);
    }

    public ServerConfig with(EngineMode engine, int port) {
        return new ServerConfig(
                host,
                port,
                engine,
                platformThreads,
                fanoutThreads,
                shutdownGrace,
                readAhead,
                transport,
                limits,
                tls,
                http2,
                responseRequestId);
    }

    public ServerConfig with(ServerLimits limits) {
        return new ServerConfig(
                host,
                port,
                engine,
                platformThreads,
                fanoutThreads,
                shutdownGrace,
                readAhead,
                transport,
                limits,
                tls,
                http2,
                responseRequestId);
    }

    /** The same server with TLS on its listener. */
    public ServerConfig with(TlsConfig tls) {
        return new ServerConfig(
                host,
                port,
                engine,
                platformThreads,
                fanoutThreads,
                shutdownGrace,
                readAhead,
                transport,
                limits,
                Optional.of(tls),
                http2,
                responseRequestId);
    }

    /** The same server with these HTTP/2 settings. */
    public ServerConfig with(Http2Settings http2) {
        return new ServerConfig(
                host,
                port,
                engine,
                platformThreads,
                fanoutThreads,
                shutdownGrace,
                readAhead,
                transport,
                limits,
                tls,
                http2,
                responseRequestId);
    }

    /** The same server, its answers with or without their {@code X-Request-Id}. */
    public ServerConfig withResponseRequestId(boolean responseRequestId) {
        return new ServerConfig(
                host,
                port,
                engine,
                platformThreads,
                fanoutThreads,
                shutdownGrace,
                readAhead,
                transport,
                limits,
                tls,
                http2,
                responseRequestId);
    }

    /** {@code https} with TLS on the listener, else {@code http}. */
    public String scheme() {
        return tls.isPresent() ? "https" : "http";
    }
}
