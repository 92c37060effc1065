package dev.sluice.demo;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigLoader;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.UpstreamConfig;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/** The bundled demo configuration ({@code dev/sluice/demo/sluice-demo.yaml}). */
public final class DemoConfig {

    /** The label the bundled file is loaded under, used in messages. */
    public static final String SOURCE = "sluice-demo.yaml (bundled)";

    private DemoConfig() {}

    /** The bundled YAML text, comments included. */
    public static String yaml() {
        return JsonDocument.resource("sluice-demo.yaml");
    }

    /** The bundled configuration, parsed and validated. */
    public static GatewayConfig load() throws ConfigException {
        return ConfigLoader.parse(yaml(), SOURCE);
    }

    /**
     * The same configuration with each upstream named in {@code urls} pointed at that URL (the demo
     * uses this when its upstreams run on another port base; {@code sluice run} never rewrites).
     */
    public static GatewayConfig pointedAt(GatewayConfig config, Map<String, URI> urls) {
        requireNonNull(config, "config");
        requireNonNull(urls, "urls");
        Map<String, UpstreamConfig> upstreams = new LinkedHashMap<>();
        for (Map.Entry<String, UpstreamConfig> e : config.upstreams().entrySet()) {
            UpstreamConfig u = e.getValue();
            URI url = urls.get(e.getKey());
            upstreams.put(
                    e.getKey(),
                    url == null
                            ? u
                            : new UpstreamConfig(
                                    u.name(),
                                    url,
                                    u.maxConnections(),
                                    u.connectTimeout(),
                                    u.readTimeout(),
                                    u.acquireTimeout(),
                                    u.maxPending(),
                                    u.idleTimeout(),
                                    u.pace()));
        }
        return new GatewayConfig(
                config.server(), config.admin(), upstreams, config.routes(), config.logging(), config.redis());
    }
}
