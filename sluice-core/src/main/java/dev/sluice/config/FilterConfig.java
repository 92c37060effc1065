package dev.sluice.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A typed filter on a route. Edge functions (authentication, rate limits, retries, circuit breakers)
 * join this sealed family as they are built; engines apply them with a switch over the permitted
 * types.
 */
public sealed interface FilterConfig {

    /**
     * Rewrites request headers before they go upstream: {@code request-headers: {set: {..}, remove: [..]}}.
     *
     * @param set header name → value, replacing any value the client sent
     * @param remove header names (lower case) to drop
     */
    record RequestHeaders(Map<String, String> set, List<String> remove) implements FilterConfig {
        public RequestHeaders {
            set = Map.copyOf(set);
            remove = List.copyOf(remove);
        }
    }

    /**
     * Isolates a slow route: {@code concurrency: {max: 200, queue: 100, queue-timeout: 1s}}. At most
     * {@code max} requests in flight; up to {@code queue} more wait at most {@code queueTimeout} for a
     * slot; beyond that, {@code 503 overloaded}.
     */
    record Concurrency(int max, int queue, Duration queueTimeout) implements FilterConfig {
        public Concurrency {
            java.util.Objects.requireNonNull(queueTimeout, "queueTimeout");
        }
    }

    /**
     * The largest request body this route takes, counted as it streams: {@code max-body: 10MiB}.
     * Overrides {@code server.limits.max-body}; beyond it, {@code 413 content_too_large} and the
     * upstream request is aborted, never ended.
     */
    record MaxBody(long bytes) implements FilterConfig {}

    /**
     * Lets requests through by client address: {@code ip-filter: {allow: [CIDR..], deny: [CIDR..],
     * trusted-proxies: [CIDR..]}} (see {@code dev.sluice.policy.IpFilter}).
     */
    record IpFilter(List<String> allow, List<String> deny, List<String> trustedProxies) implements FilterConfig {
        public IpFilter {
            allow = List.copyOf(allow);
            deny = List.copyOf(deny);
            trustedProxies = List.copyOf(trustedProxies);
        }
    }

    /**
     * Cross-origin requests from browsers: {@code cors: {allowed-origins: [..], allowed-methods: [..],
     * allowed-headers: [..], expose-headers: [..], allow-credentials: false, max-age: 10m}} (see
     * {@code dev.sluice.policy.Cors}).
     *
     * @param allowedOrigins origins as {@code scheme://host[:port]} (lower case, no default port),
     *     patterns {@code scheme://*.suffix[:port]}, or the one entry {@code *}
     * @param allowedMethods methods a preflight may announce; {@code *} for any
     * @param allowedHeaders request header names (lower case) a preflight may announce; {@code *} for any
     * @param exposeHeaders response header names a page may read, beyond the CORS-safelisted ones
     * @param allowCredentials whether pages may send cookies and {@code Authorization} (never with {@code *} origins)
     * @param maxAge how long a browser may cache a preflight's answer, if set
     */
    record Cors(
            List<String> allowedOrigins,
            List<String> allowedMethods,
            List<String> allowedHeaders,
            List<String> exposeHeaders,
            boolean allowCredentials,
            Optional<Duration> maxAge)
            implements FilterConfig {
        /** The methods allowed when none are configured (Spring's {@code CorsConfiguration} default). */
        public static final List<String> DEFAULT_METHODS = List.of("GET", "HEAD", "POST");

        public Cors {
            allowedOrigins = List.copyOf(allowedOrigins);
            allowedMethods = List.copyOf(allowedMethods);
            allowedHeaders = List.copyOf(allowedHeaders);
            exposeHeaders = List.copyOf(exposeHeaders);
            Objects.requireNonNull(maxAge, "maxAge");
            if (allowedOrigins.isEmpty()) {
                throw new IllegalArgumentException("cors: allowed-origins is empty (expected: at least one origin)");
            }
            if (allowCredentials && allowedOrigins.contains("*")) {
                throw new IllegalArgumentException("cors: '*' origins with allow-credentials");
            }
        }
    }

    /** Rewrites response headers before they reach the client: {@code response-headers: {set, remove}}. */
    record ResponseHeaders(Map<String, String> set, List<String> remove) implements FilterConfig {
        public ResponseHeaders {
            set = Map.copyOf(set);
            remove = List.copyOf(remove);
        }
    }

    /**
     * Authenticates with a JWT: {@code jwt: {jwks: URL | jwks-file: path | secret-env: VAR, issuer,
     * audience, required-claims, clock-skew, algorithms, claims-to-headers}}. A request without a
     * valid token is answered {@code 401}; one whose token fails a claim rule, {@code 403}.
     *
     * @param keys where the verification keys come from
     * @param issuer the {@code iss} a token must carry, if set
     * @param audience the {@code aud} values accepted (a token must name one); empty: any
     * @param requiredClaims the claim rules every token must pass ({@code 403} otherwise)
     * @param clockSkew how far {@code exp} and {@code nbf} may be off the gateway's clock
     * @param algorithms the {@code alg} values accepted (JWS names such as {@code RS256})
     * @param claimsToHeaders claim name → upstream header name; the client's copies are never forwarded
     */
    record Jwt(
            Keys keys,
            Optional<String> issuer,
            List<String> audience,
            List<ClaimRule> requiredClaims,
            Duration clockSkew,
            List<String> algorithms,
            Map<String, String> claimsToHeaders)
            implements FilterConfig {
        public Jwt {
            Objects.requireNonNull(keys, "keys");
            Objects.requireNonNull(issuer, "issuer");
            Objects.requireNonNull(clockSkew, "clockSkew");
            audience = List.copyOf(audience);
            requiredClaims = List.copyOf(requiredClaims);
            algorithms = List.copyOf(algorithms);
            claimsToHeaders = Collections.unmodifiableMap(new LinkedHashMap<>(claimsToHeaders));
        }

        /** The algorithms accepted when none are configured: RSA and EC signatures with a key set. */
        public static final List<String> ASYMMETRIC_DEFAULT =
                List.of("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512");

        /** The algorithms accepted when none are configured with a shared secret. */
        public static final List<String> HMAC_DEFAULT = List.of("HS256", "HS384", "HS512");

        /** Where a JWT filter's keys come from. */
        public sealed interface Keys {}

        /**
         * A JWKS fetched from {@code url}, cached for {@code cache} (refreshed ahead of expiry,
         * re-fetched on an unknown {@code kid} at most twice per half {@code cache} (30 s at most),
         * served from cache while the URL fails, for up to ten times {@code cache}).
         */
        public record JwksUrl(URI url, Duration cache) implements Keys {
            public JwksUrl {
                Objects.requireNonNull(url, "url");
                Objects.requireNonNull(cache, "cache");
            }
        }

        /** A JWKS read from a file (JSON, {@code {"keys": [..]}}) once, when the route is compiled. */
        public record JwksFile(Path path) implements Keys {
            public JwksFile {
                Objects.requireNonNull(path, "path");
            }
        }

        /** A shared secret for HS256/384/512, from an environment variable. */
        public record Secret(String variable, byte[] secret) implements Keys {
            public Secret {
                Objects.requireNonNull(variable, "variable");
                secret = secret.clone();
            }

            @Override
            public byte[] secret() {
                return secret.clone();
            }

            @Override
            public boolean equals(Object o) {
                return o instanceof Secret other
                        && variable.equals(other.variable)
                        && java.security.MessageDigest.isEqual(secret, other.secret);
            }

            @Override
            public int hashCode() {
                return variable.hashCode();
            }

            @Override
            public String toString() {
                return "Secret[variable=" + variable + "]"; // never the secret
            }
        }

        /**
         * A claim rule: the claim must be present and, when {@code values} are given, include every
         * one of them (equal to a text claim, an element of a list claim, or a word of a
         * space-separated {@code scope}/{@code scp}).
         */
        public record ClaimRule(String claim, List<String> values) {
            public ClaimRule {
                Objects.requireNonNull(claim, "claim");
                values = List.copyOf(values);
            }
        }
    }

    /**
     * A token bucket per key: {@code rate-limit: {key: client-address, permits: 100, per: 1s, burst: 20,
     * store: local, on-store-failure: allow}}. The bucket holds at most {@code permits + burst}
     * tokens, starts full and refills continuously at {@code permits} per {@code per}; a request takes
     * one token, or is answered {@code 429 rate_limited} when there is none.
     *
     * @param key what requests share a bucket by
     * @param store where the buckets live: in this process, or in the top-level {@code redis:}
     * @param failOpen what a request gets when the store cannot answer in time: through (true), or 503
     */
    record RateLimit(RateKey key, long permits, Duration per, long burst, Store store, boolean failOpen)
            implements FilterConfig {
        public RateLimit {
            java.util.Objects.requireNonNull(key, "key");
            java.util.Objects.requireNonNull(per, "per");
            java.util.Objects.requireNonNull(store, "store");
            if (permits < 1 || burst < 0 || per.isNegative() || per.isZero()) {
                throw new IllegalArgumentException("rate-limit: permits >= 1, burst >= 0 and per > 0 (got " + permits
                        + ", " + burst + ", " + per + ")");
            }
        }

        /** A bucket in this process (which never fails to answer). */
        public static RateLimit local(RateKey key, long permits, Duration per, long burst) {
            return new RateLimit(key, permits, per, burst, Store.LOCAL, true);
        }

        /** Where buckets live. */
        public enum Store {
            LOCAL,
            REDIS
        }
    }

    /**
     * Authenticates with an API key: {@code api-key: {header: X-Api-Key | query: api_key, keys-file:
     * path | keys-env: VAR}}. Exactly one of {@code header} and {@code query}.
     *
     * @param header the request header that carries the key, if keys come in a header
     * @param query the query parameter that carries the key, if keys come in the query
     * @param keys key name → the key's SHA-256, lower-case hex
     */
    record ApiKey(Optional<String> header, Optional<String> query, Map<String, String> keys) implements FilterConfig {
        public ApiKey {
            Objects.requireNonNull(header, "header");
            Objects.requireNonNull(query, "query");
            if (header.isPresent() == query.isPresent()) {
                throw new IllegalArgumentException("api-key: exactly one of header and query");
            }
            keys = Collections.unmodifiableMap(new LinkedHashMap<>(keys));
        }
    }

    /**
     * What a rate limit counts requests by: {@code client-address}, {@code header:<name>}, {@code
     * claim:<name>} (a verified JWT claim), {@code api-key} (the authenticated key's name) or {@code
     * route} (one bucket for the whole route).
     *
     * @param kind the kind of key
     * @param name the header's (lower case) or claim's name; empty for the others
     */
    record RateKey(Kind kind, String name) {
        public RateKey {
            java.util.Objects.requireNonNull(kind, "kind");
            java.util.Objects.requireNonNull(name, "name");
        }

        public static RateKey clientAddress() {
            return new RateKey(Kind.CLIENT_ADDRESS, "");
        }

        public static RateKey header(String name) {
            return new RateKey(Kind.HEADER, name.toLowerCase(java.util.Locale.ROOT));
        }

        public static RateKey route() {
            return new RateKey(Kind.ROUTE, "");
        }

        /** The key as the configuration spells it. */
        public String spelling() {
            return switch (kind) {
                case CLIENT_ADDRESS -> "client-address";
                case HEADER -> "header:" + name;
                case CLAIM -> "claim:" + name;
                case API_KEY -> "api-key";
                case ROUTE -> "route";
            };
        }

        public enum Kind {
            CLIENT_ADDRESS,
            HEADER,
            CLAIM,
            API_KEY,
            ROUTE
        }
    }

    /**
     * A team's own inbound policy: {@code custom: {policy: tenant, settings: {..}}}, made by the
     * {@link dev.sluice.spi.PolicyFactory} of that name the class path registers (found by {@link
     * java.util.ServiceLoader} when the configuration loads). Each compiled snapshot gets instances of
     * its own ({@code dev.sluice.policy.PolicyChain}).
     *
     * @param factory the factory the configuration named
     * @param settings what the factory makes the policy from
     */
    record Custom(dev.sluice.spi.PolicyFactory factory, dev.sluice.spi.PolicySettings settings)
            implements FilterConfig {
        public Custom {
            Objects.requireNonNull(factory, "factory");
            Objects.requireNonNull(settings, "settings");
        }

        /** The policy's name: its factory's. */
        public String policy() {
            return factory.name();
        }

        /** The same policy with the same settings: the same factory class (a load makes new factories). */
        @Override
        public boolean equals(Object o) {
            return o instanceof Custom other
                    && factory.getClass() == other.factory.getClass()
                    && settings.equals(other.settings);
        }

        @Override
        public int hashCode() {
            return factory.getClass().hashCode() * 31 + settings.hashCode();
        }

        @Override
        public String toString() {
            return "Custom[policy=" + factory.name() + ", settings=" + settings + "]";
        }
    }

    /**
     * Compresses the route's responses for clients that accept it: {@code compression: {types:
     * [application/json], min-size: 1KiB, level: 1, codings: [gzip], zstd-level: 3}} (see {@code
     * dev.sluice.compress.Compression}).
     *
     * @param types media types compressed, lower case: {@code type/subtype} or {@code type/*}
     * @param minSize responses of a known length below it are sent as they are
     * @param level the gzip (Deflater) level, 1 (fastest) to 9 (smallest)
     * @param codings the codings offered, in the route's order of preference: {@code gzip}, {@code
     *     zstd}
     * @param zstdLevel the zstd level, 1 (fastest) to 19
     */
    record Compression(List<String> types, long minSize, int level, List<String> codings, int zstdLevel)
            implements FilterConfig {
        public static final List<String> DEFAULT_TYPES = List.of("application/json");
        public static final long DEFAULT_MIN_SIZE = 1024;
        public static final int DEFAULT_LEVEL = 1;
        public static final List<String> DEFAULT_CODINGS = List.of("gzip");
        public static final int DEFAULT_ZSTD_LEVEL = 3;

        public Compression {
            types = List.copyOf(types);
            codings = List.copyOf(codings);
            if (minSize < 0) {
                throw new IllegalArgumentException("minSize: " + minSize + " (expected: >= 0)");
            }
            if (level < 1 || level > 9) {
                throw new IllegalArgumentException("level: " + level + " (expected: 1 to 9)");
            }
            if (zstdLevel < 1 || zstdLevel > 19) {
                throw new IllegalArgumentException("zstdLevel: " + zstdLevel + " (expected: 1 to 19)");
            }
            if (codings.isEmpty() || !codings.stream().allMatch(c -> c.equals("gzip") || c.equals("zstd"))) {
                throw new IllegalArgumentException("codings: " + codings + " (expected: gzip and/or zstd)");
            }
        }

        /** gzip only, at {@code level}. */
        public Compression(List<String> types, long minSize, int level) {
            this(types, minSize, level, DEFAULT_CODINGS, DEFAULT_ZSTD_LEVEL);
        }

        /** {@code compression: {}}: JSON of 1 KiB or more, gzip at level 1 (nginx's default: the least CPU). */
        public static Compression defaults() {
            return new Compression(DEFAULT_TYPES, DEFAULT_MIN_SIZE, DEFAULT_LEVEL);
        }
    }
}
