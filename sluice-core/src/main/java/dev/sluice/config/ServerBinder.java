package dev.sluice.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** Binds {@code server:}, its {@code limits} included ({@code server.tls}: {@link ServerTlsBinder}). */
final class ServerBinder {

    private ServerBinder() {}

    static ServerConfig server(Mapping root, Path base) {
        ServerConfig d = ServerConfig.defaults();
        Optional<Mapping> section = root.mapping("server", "a mapping of server settings");
        if (section.isEmpty()) {
            return d;
        }
        Mapping m = section.get();
        m.allowOnly(
                "host",
                "port",
                "engine",
                "platform-threads",
                "fanout-threads",
                "shutdown-grace",
                "read-ahead",
                "transport",
                "limits",
                "tls",
                "http2",
                "request-id");
        String host = m.string("host", "a host name or address").orElse(d.host());
        if (host.isBlank()) {
            m.problem("host", "'' (expected: a host name or address)");
        }
        int port = m.integer("port", d.port(), 0, 65535, "a port 0..65535");
        String engineKey = m.choice("engine", d.engine().key(), "virtual", "platform", "reactive");
        EngineMode engine = EngineMode.fromKey(engineKey).orElse(d.engine());
        int platformThreads =
                m.integer("platform-threads", d.platformThreads(), 1, Integer.MAX_VALUE, "an integer > 0");
        int fanoutThreads = m.integer("fanout-threads", d.fanoutThreads(), 1, Integer.MAX_VALUE, "an integer > 0");
        Duration grace = m.duration("shutdown-grace", d.shutdownGrace());
        int readAhead = m.size("read-ahead", d.readAhead(), 1024, "a size >= 1024 bytes, such as 16384, 16KiB, 1MiB");
        String transportKey = m.choice("transport", d.transport().key(), "auto", "nio", "io_uring");
        Transport transport = Transport.fromKey(transportKey).orElse(d.transport());
        if (transport == Transport.IO_URING && engine != EngineMode.REACTIVE) {
            m.problem(
                    "transport",
                    "'io_uring' needs engine 'reactive' (expected: auto or nio for engine '" + engine.key() + "')");
        }
        ServerLimits limits = m.mapping("limits", "a mapping of limits")
                .map(l -> limits(l, readAhead))
                .orElse(d.limits());
        Optional<TlsConfig> tls = m.mapping("tls", "a mapping with certificate and key (PEM files)")
                .flatMap(t -> ServerTlsBinder.tls(t, base));
        Http2Settings http2 = d.http2().enabled(m.bool("http2", d.http2().enabled()));
        boolean responseRequestId = m.mapping("request-id", "a mapping such as {response: false}")
                .map(r -> {
                    r.allowOnly("response");
                    return r.bool("response", d.responseRequestId());
                })
                .orElse(d.responseRequestId());
        return new ServerConfig(
                host,
                port,
                engine,
                platformThreads,
                fanoutThreads,
                grace,
                readAhead,
                transport,
                limits,
                tls,
                http2,
                responseRequestId);
    }

    /** {@code bytes} as a configuration would say it: {@code 256KiB}, {@code 64MiB}, or bytes. */
    private static String sizeText(long bytes) {
        if (bytes % (1 << 20) == 0) {
            return (bytes >> 20) + "MiB";
        }
        return bytes % 1024 == 0 ? (bytes >> 10) + "KiB" : Long.toString(bytes);
    }

    private static ServerLimits limits(Mapping m, int readAhead) {
        ServerLimits d = ServerLimits.defaults();
        m.allowOnly(
                "max-request-line",
                "max-header-bytes",
                "max-headers",
                "max-body",
                "header-timeout",
                "idle-timeout",
                "max-connections",
                "max-requests",
                "websocket-idle-timeout",
                "max-read-ahead",
                "max-part-cache");
        int requestLine =
                m.size("max-request-line", d.maxRequestLine(), 256, "a size from 256 bytes, such as 8KiB (414 beyond)");
        int headerBytes =
                m.size("max-header-bytes", d.maxHeaderBytes(), 1024, "a size from 1 KiB, such as 16KiB (431 beyond)");
        int headers = m.integer("max-headers", d.maxHeaders(), 1, 10_000, "a whole number from 1 to 10000");
        long body = m.has("max-body") && "none".equals(m.raw("max-body"))
                ? ServerLimits.UNLIMITED
                : m.longSize("max-body", d.maxBody(), 0, "a size such as 10MiB, or none");
        Duration headerTimeout = m.duration("header-timeout", d.headerTimeout());
        Duration idleTimeout = m.duration("idle-timeout", d.idleTimeout());
        int connections =
                m.integer("max-connections", d.maxConnections(), 1, 1_000_000, "a whole number from 1 to 1000000");
        int requests =
                m.integer("max-requests", d.maxRequests(), 0, 1_000_000, "a whole number from 0 (no bound) to 1000000");
        Duration websocketIdle = m.duration("websocket-idle-timeout", d.websocketIdleTimeout());
        long readAheadFloor = Math.max(ServerLimits.MIN_READ_AHEAD, 4L * readAhead);
        String readAheadExpected = "auto, or a size from " + sizeText(readAheadFloor)
                + " (256KiB, and at least four times server.read-ahead), such as 64MiB";
        long maxReadAhead = m.has("max-read-ahead") && "auto".equals(m.raw("max-read-ahead"))
                ? ServerLimits.AUTO
                : m.longSize("max-read-ahead", d.maxReadAhead(), readAheadFloor, readAheadExpected);
        long maxPartCache =
                m.longSize("max-part-cache", d.maxPartCache(), 0, "a size such as 32MiB, or 0 for no part cache");
        return new ServerLimits(
                requestLine,
                headerBytes,
                headers,
                body,
                headerTimeout,
                idleTimeout,
                connections,
                requests,
                websocketIdle,
                maxReadAhead,
                maxPartCache);
    }
}
