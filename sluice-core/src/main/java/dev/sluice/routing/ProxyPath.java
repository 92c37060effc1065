package dev.sluice.routing;

import dev.sluice.config.ProxyTarget;
import java.util.Map;

/**
 * Where a proxied request goes upstream: decided here, once, for every engine (see {@link
 * ProxyTarget} for the precedence of {@code path}, {@code rewrite}, {@code strip-prefix} and the
 * request path).
 */
public final class ProxyPath {

    private ProxyPath() {}

    /**
     * The upstream request target (origin form), the upstream's base path included.
     *
     * @param basePath the upstream's base path ({@code ""} for none)
     * @param match the route match: its normalised path, variables and wildcard remainder (the raw
     *     path is never forwarded)
     * @param query the request's decoded query parameters; read only when a template asks for one,
     *     so an engine may pass a map that parses on first use
     * @param rawQuery the request's query string as the client sent it, or null when it had none;
     *     kept as it is unless a template decides the target
     * @throws PathTemplate.ExpansionException when a template lacks a value or a value is unsafe, or
     *     a rewrite would make a path that is not normalised
     */
    public static String target(
            ProxyTarget target,
            String basePath,
            RouteTable.Result.Matched match,
            Map<String, String> query,
            String rawQuery) {
        if (target.path().isPresent()) {
            return basePath + target.path().get().expand(match.variables(), query, match.remainder());
        }
        String path = match.path();
        if (target.rewrite().isPresent()) {
            path = target.rewrite().get().apply(path);
        } else if (target.stripPrefix().isPresent()) {
            String prefix = target.stripPrefix().get();
            if (path.startsWith(prefix) && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/')) {
                path = path.length() == prefix.length() ? "/" : path.substring(prefix.length());
            }
        }
        return rawQuery == null ? basePath + path : basePath + path + '?' + rawQuery;
    }
}
