package dev.sluice.http;

import dev.sluice.config.FilterConfig;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which headers cross the gateway, per route: hop-by-hop headers never do, {@code Host} and the
 * {@code X-Forwarded-*} trio are rewritten, and the route's {@code request-headers} /
 * {@code response-headers} filters set and remove. Built once per route; engines ask it per header.
 *
 * <pre>
 *   client headers ──forwardRequest?──► upstream  (+ Host, X-Forwarded-*, requestSets)
 *   upstream headers ─forwardResponse?─► client   (+ responseSets)
 * </pre>
 */
public final class HeaderRules {

    /**
     * The header whose value {@link #forwardRequest} and {@link #forwardResponse} take: the names its
     * tokens list are hop-by-hop too (RFC 9110 section 7.6.1). The engine looks it up by this name and
     * hands the value in as it came.
     */
    public static final String CONNECTION = "Connection";

    private static final Set<String> REWRITTEN_REQUEST = Set.of(
            "host",
            "content-length",
            "transfer-encoding",
            "expect",
            "x-forwarded-for",
            "x-forwarded-proto",
            "x-forwarded-host",
            "x-request-id", // the engine sets the exchange's own (RequestId), once
            "traceparent", // and its own span of the client's trace (TraceContext)
            "tracestate");
    /** The body's framing, and the answer's X-Request-Id: the gateway writes its own ({@link RequestId#onAnswer}). */
    private static final Set<String> FRAMING_RESPONSE = Set.of("transfer-encoding", "x-request-id");
    /**
     * What an HTTP/2 library adds when it turns a stream into an HTTP/1.1 request (Netty's
     * HttpConversionUtil.ExtensionHeaderNames): the stream's id, scheme, priority. They describe the
     * client's hop, never sent by a client as such, and never forwarded.
     */
    private static final Set<String> H2_CONVERSION = Set.of(
            "x-http2-stream-id",
            "x-http2-scheme",
            "x-http2-path",
            "x-http2-stream-promise-id",
            "x-http2-stream-dependency-id",
            "x-http2-stream-weight");

    /**
     * {@code transfer_encoding}, {@code content_length} and the other framing, hop-by-hop and
     * rewritten names spelled with an underscore: never forwarded. Some upstream servers (CGI-style
     * ones, frameworks that map headers to variables) read {@code Transfer_Encoding} as {@code
     * Transfer-Encoding}, so a client could frame its request one way for the gateway and another for
     * the upstream: a request smuggled past the gateway (defparam's smuggler, mutation
     * "underjoin1"). nginx drops every underscored name by default; Envoy can
     * ({@code headers_with_underscores_action}); Sluice drops these.
     */
    private static final Set<String> UNDERSCORED = underscored();

    private static Set<String> underscored() {
        Set<String> names = new HashSet<>();
        for (String name : REWRITTEN_REQUEST) {
            names.add(name.replace('-', '_'));
        }
        for (String name : HopByHop.names()) {
            names.add(name.replace('-', '_'));
        }
        names.removeIf(name -> name.indexOf('_') < 0);
        return Set.copyOf(names);
    }

    private final Set<String> requestDrops = new HashSet<>();
    private final Map<String, String> requestSets = new LinkedHashMap<>();
    private final Set<String> responseDrops = new HashSet<>();
    private final Map<String, String> responseSets = new LinkedHashMap<>();
    private final Map<String, String> composedResponse = new LinkedHashMap<>();
    // Every name never copied as it is, one lookup per header in any case: rewritten or framing names,
    // the route's drops and sets, and the hop-by-hop names.
    private HeaderNameSet requestBlocked;
    private HeaderNameSet requestSetNames; // the route's request sets, for UpstreamHead
    private HeaderNameSet responseBlocked;

    private boolean preservesHost;

    private HeaderRules() {}

    /** The rules of {@code route}: its filters' header edits, and its proxy's {@code preserve-host}. */
    public static HeaderRules of(dev.sluice.config.RouteConfig route) {
        HeaderRules rules = of(route.filters());
        rules.preservesHost = route.target() instanceof dev.sluice.config.ProxyTarget proxy && proxy.preserveHost();
        return rules;
    }

    /** Whether the client's {@code Host} goes upstream ({@code preserve-host}): {@link UpstreamHead} decides. */
    public boolean preservesHost() {
        return preservesHost;
    }

    /** The rules of a route with these filters. */
    public static HeaderRules of(List<FilterConfig> filters) {
        HeaderRules rules = new HeaderRules();
        for (FilterConfig filter : filters) {
            switch (filter) {
                case FilterConfig.RequestHeaders h -> {
                    h.remove().forEach(n -> rules.requestDrops.add(n.toLowerCase(Locale.ROOT)));
                    h.set().forEach((n, v) -> rules.requestSets.put(n, v));
                }
                case FilterConfig.Concurrency c -> {} // a policy: PolicyChain
                case FilterConfig.MaxBody b -> {} // a limit: GatewaySnapshot
                // Policies (PolicyChain), whose edits set these per request; the client's copies never
                // cross, whether or not the policy sets them.
                case FilterConfig.Jwt j ->
                    j.claimsToHeaders().values().forEach(n -> rules.requestDrops.add(n.toLowerCase(Locale.ROOT)));
                case FilterConfig.ApiKey a ->
                    a.header().ifPresent(n -> rules.requestDrops.add(n.toLowerCase(Locale.ROOT)));
                case FilterConfig.RateLimit r -> {} // a policy: PolicyChain
                case FilterConfig.IpFilter f -> {} // a policy: PolicyChain
                case FilterConfig.Cors c -> {} // a policy: PolicyChain
                case FilterConfig.Custom c -> {} // a policy: PolicyChain (its edits come with its Decision)
                case FilterConfig.Compression c -> {} // applied to the response: Compression
                case FilterConfig.ResponseHeaders h -> {
                    h.remove().forEach(n -> rules.responseDrops.add(n.toLowerCase(Locale.ROOT)));
                    h.set().forEach((n, v) -> rules.responseSets.put(n, v));
                }
            }
        }
        rules.requestSets.keySet().forEach(n -> rules.requestDrops.add(n.toLowerCase(Locale.ROOT)));
        rules.responseSets.keySet().forEach(n -> rules.responseDrops.add(n.toLowerCase(Locale.ROOT)));
        Set<String> requestBlocked = new HashSet<>(REWRITTEN_REQUEST);
        requestBlocked.addAll(rules.requestDrops);
        requestBlocked.addAll(HopByHop.names());
        requestBlocked.addAll(UNDERSCORED);
        requestBlocked.addAll(H2_CONVERSION);
        Set<String> responseBlocked = new HashSet<>(FRAMING_RESPONSE);
        responseBlocked.addAll(rules.responseDrops);
        responseBlocked.addAll(HopByHop.names());
        rules.requestBlocked = new HeaderNameSet(requestBlocked);
        rules.requestSetNames = new HeaderNameSet(rules.requestSets.keySet());
        rules.responseBlocked = new HeaderNameSet(responseBlocked);
        if (!rules.responseDrops.contains("content-type")) {
            rules.composedResponse.put("Content-Type", "application/json");
        }
        rules.composedResponse.putAll(rules.responseSets);
        return rules;
    }

    /**
     * Whether a client request header is copied upstream as it is.
     *
     * @param name header name, any case (a {@code String}, or an engine's own ASCII name)
     * @param connection the request's Connection header, or null
     */
    public boolean forwardRequest(CharSequence name, String connection) {
        return !requestBlocked.contains(name) && !HopByHop.listed(name, connection);
    }

    /** Headers the route sets on every upstream request (after the copied ones). */
    public Map<String, String> requestSets() {
        return requestSets;
    }

    /** Whether the route's {@code request-headers} set {@code name} (any case). */
    public boolean setsRequest(CharSequence name) {
        return !requestSets.isEmpty() && requestSetNames.contains(name);
    }

    /**
     * Whether an upstream response header is copied to the client. {@code Content-Length} is; the
     * engine keeps the body framing consistent with it.
     *
     * @param name header name, any case
     * @param connection the response's Connection header, or null
     */
    public boolean forwardResponse(CharSequence name, String connection) {
        return !responseBlocked.contains(name) && !HopByHop.listed(name, connection);
    }

    /**
     * The headers of a composed response, which the gateway writes itself: {@code Content-Type:
     * application/json} unless the route removes or sets it, then the route's sets.
     */
    public Map<String, String> composedResponseHeaders() {
        return composedResponse;
    }

    /** Headers the route sets on every response it relays (proxy and composition). */
    public Map<String, String> responseSets() {
        return responseSets;
    }

    /** The X-Forwarded-For value: the client's, if any, with {@code clientAddress} appended. */
    public static String forwardedFor(String existing, String clientAddress) {
        return existing == null || existing.isBlank() ? clientAddress : existing + ", " + clientAddress;
    }

    /** Whether {@code s} is an HTTP token (RFC 9110 §5.6.2), as header names and methods are. */
    public static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code s} may be sent as a header value: no control character but tab. The one rule for
     * every value the gateway writes that it did not read from a checked head: the configuration's,
     * a claim's, a policy's ({@code UpstreamEdits}).
     */
    public static boolean isValue(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                return false;
            }
        }
        return true;
    }
}
