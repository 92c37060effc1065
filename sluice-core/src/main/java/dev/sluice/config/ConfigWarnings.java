package dev.sluice.config;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@code sluice check} warns of in a configuration that loads: parts that are valid but do nothing, or that
 * promise what the gateway then refuses.
 *
 * <ul>
 *   <li>an upstream no route uses ({@code upstreams.NAME});
 *   <li>a CORS {@code allowed-methods} entry the route's {@code match.methods} does not accept: the preflight says
 *       yes and the request then gets 405;
 *   <li>an admin listener beyond loopback without {@code admin.auth.token} or a required client
 *       certificate ({@code admin.tls.client-auth: require}): anyone who reaches it may
 *       reload the configuration and read it and the metrics.
 * </ul>
 */
public final class ConfigWarnings {
    private ConfigWarnings() {}

    public static List<Problem> of(GatewayConfig config) {
        List<Problem> warnings = new ArrayList<>();
        Set<String> used = new LinkedHashSet<>();
        for (RouteConfig route : config.routes()) {
            switch (route.target()) {
                case ProxyTarget proxy -> {
                    used.add(proxy.upstream());
                    proxy.backends().ifPresent(b -> b.sides().forEach(side -> used.add(side.upstream())));
                    proxy.mirror().ifPresent(mirror -> used.add(mirror.upstream()));
                }
                case ComposeTarget compose -> compose.parts().forEach(part -> used.add(part.upstream()));
                case AnswerTarget answer -> {} // asks no upstream
            }
        }
        for (String name : config.upstreams().keySet()) {
            if (!used.contains(name)) {
                warnings.add(new Problem("upstreams." + name, "no route uses this upstream"));
            }
        }
        for (int i = 0; i < config.routes().size(); i++) {
            RouteConfig route = config.routes().get(i);
            Set<String> accepted = route.match().methods();
            if (accepted.isEmpty()) {
                continue; // any method matches
            }
            for (int j = 0; j < route.filters().size(); j++) {
                if (route.filters().get(j) instanceof FilterConfig.Cors cors) {
                    for (String method : cors.allowedMethods()) {
                        if (!method.equals("*") && !accepted.contains(method)) {
                            warnings.add(new Problem(
                                    "routes[" + i + "].filters[" + j + "].cors.allowed-methods",
                                    method + " is allowed but the route's match.methods " + accepted
                                            + " do not accept it (the preflight says yes, the request gets 405)"));
                        }
                    }
                }
            }
        }
        config.admin()
                .filter(admin -> !admin.loopbackOnly() && !admin.authenticates())
                .ifPresent(admin -> warnings.add(new Problem(
                        "admin.host",
                        "'" + admin.host()
                                + "' listens beyond this host without admin.auth.token or admin.tls with client-auth: require: anyone who"
                                + " reaches it may POST /reload and read /config and /metrics")));
        return warnings;
    }
}
