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

    /**
     * The bundled YAML with its six upstream URLs on {@code portBase}..{@code portBase + 5} in place
     * of {@value DemoUpstreams#DEFAULT_PORT_BASE}.. (what {@code sluice config --upstream-port-base N}
     * prints, for {@code sluice upstreams --port-base N}).
     */
    public static String yaml(int portBase) {
        int from = DemoUpstreams.DEFAULT_PORT_BASE;
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("127\\.0\\.0\\.1:(\\d{5})").matcher(yaml());
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            int port = Integer.parseInt(m.group(1));
            int moved = port >= from && port < from + 6 ? portBase + port - from : port;
            m.appendReplacement(out, "127.0.0.1:" + moved);
        }
        m.appendTail(out);
        return out.toString()
                .replace(
                        "# The upstream URLs use the demo's default port base, " + from + ".",
                        "# The upstream URLs use port base " + portBase + " (sluice config --upstream-port-base "
                                + portBase + "; sluice upstreams --port-base " + portBase + ").");
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
