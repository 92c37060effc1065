package dev.sluice.policy;

import dev.sluice.config.FilterConfig;
import dev.sluice.http.HeaderRules;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@code cors} filter: answers a browser's preflight at the gateway and marks the responses to
 * allowed cross-origin requests, as the Fetch standard's CORS protocol asks.
 *
 * <pre>
 *   OPTIONS + Origin + Access-Control-Request-Method (a preflight; never reaches the upstream)
 *     origin, method and every requested header allowed -> 204, Access-Control-Allow-* fields
 *     anything not allowed                               -> 403 cors_rejected (JSON), no Allow-* field
 *   any other request with an Origin
 *     allowed origin     -> proceeds; its response gets Access-Control-Allow-Origin (and -Credentials,
 *                           -Expose-Headers) through {@link ResponseEdits}
 *     other origin       -> proceeds without them: the browser keeps the response from the page
 *   every response       -> Vary: Origin (a preflight's: also Access-Control-Request-Method/-Headers)
 * </pre>
 *
 * A refused preflight is a {@code 403}, as Spring's {@code DefaultCorsProcessor} answers; an actual
 * request from another origin passes without CORS fields, as Envoy's {@code cors} filter does (the
 * browser enforces CORS; the gateway's other policies guard what such a request may do).
 */
public final class Cors implements InboundPolicy {

    static final String ORIGIN = "Origin";
    static final String REQUEST_METHOD = "Access-Control-Request-Method";
    static final String REQUEST_HEADERS = "Access-Control-Request-Headers";

    private static final List<String> VARY_ACTUAL = List.of(ORIGIN);
    private static final List<String> VARY_PREFLIGHT = List.of(ORIGIN, REQUEST_METHOD, REQUEST_HEADERS);
    private static final Map<String, String> PREFLIGHT_VARY = Map.of("Vary", String.join(", ", VARY_PREFLIGHT));
    private static final Decision VARY_ONLY = Decision.Proceed.responding(ResponseEdits.of(Map.of(), VARY_ACTUAL));

    private final CorsOrigins origins;
    private final boolean anyMethod;
    private final Set<String> methods;
    private final String allowMethods;
    private final boolean anyHeader;
    private final Set<String> headers; // lower case
    private final String exposeHeaders; // null when none
    private final boolean credentials;
    private final String maxAge; // seconds, null when not set
    private final Decision anyOrigin; // what an actual request gets with '*' origins

    public Cors(FilterConfig.Cors config) {
        this.origins = CorsOrigins.of(config.allowedOrigins());
        this.anyMethod = config.allowedMethods().contains("*");
        this.methods = Set.copyOf(config.allowedMethods());
        this.allowMethods = String.join(", ", config.allowedMethods());
        this.anyHeader = config.allowedHeaders().contains("*");
        Set<String> lower = new HashSet<>();
        config.allowedHeaders().forEach(h -> lower.add(h.toLowerCase(Locale.ROOT)));
        this.headers = Set.copyOf(lower);
        this.exposeHeaders = config.exposeHeaders().isEmpty() ? null : String.join(", ", config.exposeHeaders());
        this.credentials = config.allowCredentials();
        this.maxAge = config.maxAge().map(d -> Long.toString(d.toSeconds())).orElse(null);
        this.anyOrigin = Decision.Proceed.responding(ResponseEdits.of(actualFields("*"), VARY_ACTUAL));
    }

    @Override
    public String name() {
        return "cors";
    }

    @Override
    public Decision admit(Inbound request) {
        String origin = request.header(ORIGIN);
        if (origin == null) {
            return VARY_ONLY;
        }
        String method = request.header(REQUEST_METHOD);
        if (method != null && request.method().equals("OPTIONS")) {
            return preflight(origin, method.strip(), request.header(REQUEST_HEADERS));
        }
        if (!origins.allows(origin)) {
            return VARY_ONLY;
        }
        if (origins.any()) { // never with credentials: the configuration refuses it
            return anyOrigin;
        }
        return Decision.Proceed.responding(ResponseEdits.of(actualFields(origin), VARY_ACTUAL));
    }

    private Map<String, String> actualFields(String allowOrigin) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("Access-Control-Allow-Origin", allowOrigin);
        if (credentials) {
            fields.put("Access-Control-Allow-Credentials", "true");
        }
        if (exposeHeaders != null) {
            fields.put("Access-Control-Expose-Headers", exposeHeaders);
        }
        return fields;
    }

    private Decision preflight(String origin, String method, String requestHeaders) {
        if (!origins.allows(origin)) {
            return refused("the origin '" + shown(origin) + "' is not allowed");
        }
        if (!HeaderRules.isToken(method) || (!anyMethod && !methods.contains(method))) {
            return refused("the method '" + shown(method) + "' is not allowed (allowed: " + allowMethods + ")");
        }
        List<String> asked = new ArrayList<>();
        if (requestHeaders != null) {
            for (String name : requestHeaders.split(",")) {
                String n = name.strip().toLowerCase(Locale.ROOT);
                if (n.isEmpty()) {
                    continue;
                }
                if (!HeaderRules.isToken(n) || (!anyHeader && !headers.contains(n))) {
                    return refused("the request header '" + shown(n) + "' is not allowed");
                }
                asked.add(n);
            }
        }
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("Access-Control-Allow-Origin", origins.any() ? "*" : origin);
        fields.put("Access-Control-Allow-Methods", anyMethod ? method : allowMethods);
        if (!asked.isEmpty()) {
            fields.put("Access-Control-Allow-Headers", String.join(", ", asked));
        }
        if (credentials) {
            fields.put("Access-Control-Allow-Credentials", "true");
        }
        if (maxAge != null) {
            fields.put("Access-Control-Max-Age", maxAge);
        }
        fields.putAll(PREFLIGHT_VARY);
        return new Decision.Answer(204, fields);
    }

    private static Decision refused(String message) {
        return new Decision.Reject(403, "cors_rejected", "CORS preflight refused: " + message, PREFLIGHT_VARY);
    }

    /** A client's value in a message: at most 100 characters. */
    private static String shown(String value) {
        return value.length() <= 100 ? value : value.substring(0, 100) + "...";
    }
}
