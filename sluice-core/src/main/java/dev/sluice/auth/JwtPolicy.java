package dev.sluice.auth;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.crypto.factories.DefaultJWSVerifierFactory;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.sluice.config.FilterConfig;
import dev.sluice.http.HeaderRules;
import dev.sluice.policy.Decision;
import dev.sluice.policy.InboundPolicy;
import dev.sluice.policy.UpstreamEdits;
import java.io.IOException;
import java.net.MalformedURLException;
import java.security.Key;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;

/**
 * {@code jwt:}: a request must carry {@code Authorization: Bearer <JWT>} signed with one of the
 * route's keys by an accepted algorithm, not expired, already valid, from the configured issuer
 * and for the configured audience ({@code 401 invalid_token} otherwise), and its claims must pass
 * the route's claim rules ({@code 403 insufficient_scope} otherwise). Challenges follow RFC 6750.
 *
 * <pre>
 *   Authorization: Bearer h.p.s ─parse─► alg allowed? ─keys─► signature ─► exp/nbf/iss/aud ─► rules
 *                                                        │ cached: here, on the caller's thread
 *                                                        └ a fetch: Pending, on a virtual thread
 * </pre>
 *
 * A token that proceeds hands its claims on as attributes ({@code claim:sub}) and sets the
 * configured {@code claims-to-headers} on every upstream request; the client's copies of those
 * headers never go upstream.
 */
public final class JwtPolicy implements InboundPolicy {

    private static final ExecutorService FETCHES = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("sluice-jwks-", 0).factory());
    private static final DefaultJWSVerifierFactory VERIFIERS = new DefaultJWSVerifierFactory();
    private static final Decision.Reject NO_TOKEN = new Decision.Reject(
            401,
            "unauthorized",
            "a bearer token is required (Authorization: Bearer <token>)",
            Map.of("WWW-Authenticate", "Bearer"));

    private static final Decision.Reject KEYS_UNAVAILABLE = new Decision.Reject(
            503,
            "keys_unavailable",
            "the keys to verify the token with could not be fetched",
            Map.of("Retry-After", "5"));

    private final JwtKeys keys;
    private final Set<JWSAlgorithm> algorithms;
    private final String accepted; // the algorithms, for messages
    private final String issuer; // or null
    private final Set<String> audience;
    private final List<FilterConfig.Jwt.ClaimRule> rules;
    private final long skewSeconds;
    private final Map<String, String> claimsToHeaders;
    private final UpstreamEdits removeOnly; // the claim headers removed, none set
    private final Clock clock;
    private final ExecutorService fetches;
    /**
     * Tokens whose signature and claims passed, by the token's exact text (signature included), as
     * Envoy's jwt_authn caches them: a hit costs a hash lookup instead of a signature check (an RS256
     * check is the dearest step of a request). An entry lives at most {@link #VERIFIED_FOR}, so a key removed from
     * the JWKS stops admitting its tokens within that, and never past the token's own {@code exp},
     * which is checked again on every hit.
     */
    private final Cache<String, Verified> verified = Caffeine.newBuilder()
            .maximumSize(VERIFIED_TOKENS)
            .expireAfterWrite(VERIFIED_FOR)
            .build();

    JwtPolicy(FilterConfig.Jwt config, JwtKeys keys, Clock clock, ExecutorService fetches) {
        requireNonNull(config, "config");
        this.keys = requireNonNull(keys, "keys");
        this.clock = requireNonNull(clock, "clock");
        this.fetches = requireNonNull(fetches, "fetches");
        this.algorithms = config.algorithms().stream().map(JWSAlgorithm::parse).collect(Collectors.toUnmodifiableSet());
        if (algorithms.isEmpty() || config.algorithms().contains("none")) {
            throw new IllegalArgumentException(
                    "jwt: algorithms " + config.algorithms() + " (expected: some, never none)");
        }
        this.accepted = String.join(", ", config.algorithms());
        this.issuer = config.issuer().orElse(null);
        this.audience = Set.copyOf(config.audience());
        this.rules = config.requiredClaims();
        this.skewSeconds = config.clockSkew().toSeconds();
        this.claimsToHeaders = config.claimsToHeaders();
        this.removeOnly = UpstreamEdits.of(Map.of(), claimsToHeaders.values(), Set.of());
    }

    /** The policy a {@code jwt:} filter configures; a JWKS file is read now. */
    public static JwtPolicy of(FilterConfig.Jwt config) {
        return new JwtPolicy(config, keys(config.keys()), Clock.systemUTC(), FETCHES);
    }

    static JwtKeys keys(FilterConfig.Jwt.Keys keys) {
        return switch (keys) {
            case FilterConfig.Jwt.JwksUrl u -> {
                try {
                    yield new JwtKeys.Remote(u.url().toURL(), u.cache(), FETCHES, System::nanoTime);
                } catch (MalformedURLException | IllegalArgumentException e) {
                    throw new IllegalArgumentException("jwt: jwks '" + u.url() + "' is not a URL", e);
                }
            }
            case FilterConfig.Jwt.JwksFile f -> {
                try {
                    yield JwtKeys.Fixed.of(JWKSet.load(f.path().toFile()));
                } catch (IOException | ParseException e) {
                    throw new IllegalArgumentException("jwt: jwks-file '" + f.path() + "' is not a readable JWKS", e);
                }
            }
            case FilterConfig.Jwt.Secret s -> JwtKeys.Fixed.secret(s.secret());
        };
    }

    @Override
    public String name() {
        return "jwt";
    }

    /** Most verified tokens remembered per {@code jwt} filter. */
    static final int VERIFIED_TOKENS = 4096;

    /** Longest a verified token is remembered without being checked again. */
    static final Duration VERIFIED_FOR = Duration.ofSeconds(60);

    /** A token that passed, with its validity window (epoch seconds; nbf {@code Long.MIN_VALUE} if none). */
    private record Verified(Decision decision, long exp, long nbf) {}

    @Override
    public Decision admit(Inbound request) {
        String token = bearer(request.header("Authorization"));
        if (token == null) {
            return NO_TOKEN;
        }
        if (token.isEmpty()) {
            return invalid("the bearer token is empty");
        }
        Verified known = verified.getIfPresent(token);
        if (known != null) {
            long now = Math.floorDiv(clock.millis(), 1000); // no Instant made
            if (now <= known.exp() + skewSeconds && now + skewSeconds >= known.nbf()) {
                return known.decision();
            }
            verified.invalidate(token); // out of its window now: checked in full, and refused
        }
        SignedJWT jwt;
        try {
            jwt = SignedJWT.parse(token);
        } catch (ParseException e) {
            return invalid("the token is not a signed JWT");
        }
        JWSHeader header = jwt.getHeader();
        if (!algorithms.contains(header.getAlgorithm())) {
            return invalid("the token's algorithm is not accepted (expected: one of " + accepted + ")");
        }
        List<Key> candidates = keys.cached(header);
        if (candidates != null) {
            return remember(token, jwt, check(jwt, candidates));
        }
        CompletableFuture<Decision> later = new CompletableFuture<>();
        fetches.execute(() -> {
            if (later.isDone()) { // abandoned while waiting for a thread
                return;
            }
            Decision decision;
            try {
                List<Key> found = keys.fetch(header);
                // no key matches, but the set could not be fetched: maybe it has the key, unknown yet
                decision = found.isEmpty() && keys.unavailable()
                        ? KEYS_UNAVAILABLE
                        : remember(token, jwt, check(jwt, found));
            } catch (RateLimitReachedException e) {
                // no fetch now (nimbus' bound on refetches): an outage goes on, or the kid is unknown
                decision = keys.unavailable() ? KEYS_UNAVAILABLE : invalid("no key of the issuer matches the token");
            } catch (KeySourceException e) {
                decision = KEYS_UNAVAILABLE;
            } catch (RuntimeException e) {
                later.completeExceptionally(e);
                return;
            }
            later.complete(decision);
        });
        return new Decision.Pending(later);
    }

    /** {@code decision}, remembered for {@code token} when it admits it. */
    private Decision remember(String token, SignedJWT jwt, Decision decision) {
        if (decision instanceof Decision.Proceed) {
            try {
                JWTClaimsSet claims = jwt.getJWTClaimsSet(); // parsed once by check, kept by the JWT
                Date nbf = claims.getNotBeforeTime();
                verified.put(
                        token,
                        new Verified(
                                decision,
                                claims.getExpirationTime().getTime() / 1000,
                                nbf == null ? Long.MIN_VALUE : nbf.getTime() / 1000));
            } catch (ParseException e) {
                // cannot happen after check() admitted it; not remembering is always safe
            }
        }
        return decision;
    }

    /** The token of an {@code Authorization: Bearer} header (scheme in any case), or null for none. */
    static String bearer(String authorization) {
        if (authorization == null
                || authorization.length() < 6
                || !authorization.regionMatches(true, 0, "Bearer", 0, 6)) {
            return null;
        }
        if (authorization.length() == 6) {
            return "";
        }
        if (authorization.charAt(6) != ' ') {
            return null; // another scheme, such as "Bearerx"
        }
        return authorization.substring(7).strip();
    }

    private Decision check(SignedJWT jwt, List<Key> candidates) {
        if (candidates.isEmpty()) {
            return invalid("no key of the issuer matches the token");
        }
        if (!verified(jwt, candidates)) {
            return invalid("the token's signature does not verify");
        }
        JWTClaimsSet claims;
        try {
            claims = jwt.getJWTClaimsSet();
        } catch (ParseException e) {
            return invalid("the token's claims are not a JSON object");
        }
        long now = Math.floorDiv(clock.millis(), 1000); // no Instant made
        Date exp = claims.getExpirationTime();
        if (exp == null) {
            return invalid("the token has no expiry (exp)");
        }
        if (now > exp.getTime() / 1000 + skewSeconds) {
            return invalid("the token expired");
        }
        Date nbf = claims.getNotBeforeTime();
        if (nbf != null && now + skewSeconds < nbf.getTime() / 1000) {
            return invalid("the token is not valid yet (nbf)");
        }
        if (issuer != null && !issuer.equals(claims.getIssuer())) {
            return invalid("the token's issuer is not accepted");
        }
        if (!audience.isEmpty() && claims.getAudience().stream().noneMatch(audience::contains)) {
            return invalid("the token is not meant for this audience");
        }
        for (FilterConfig.Jwt.ClaimRule rule : rules) {
            Object value = claims.getClaim(rule.claim());
            if (value == null) {
                return insufficient("the token has no claim '" + rule.claim() + "'");
            }
            for (String wanted : rule.values()) {
                if (!includes(rule.claim(), value, wanted)) {
                    return insufficient("the token's claim '" + rule.claim() + "' does not include '" + wanted + "'");
                }
            }
        }
        return admitted(claims);
    }

    private static boolean verified(SignedJWT jwt, List<Key> candidates) {
        for (Key key : candidates) {
            try {
                if (jwt.verify(VERIFIERS.createJWSVerifier(jwt.getHeader(), key))) {
                    return true;
                }
            } catch (JOSEException e) {
                // this key cannot verify this algorithm (an RSA key for HS256, a short secret): the next
            }
        }
        return false;
    }

    private Decision admitted(JWTClaimsSet claims) {
        Map<String, String> attributes = new HashMap<>();
        for (Map.Entry<String, Object> claim : claims.getClaims().entrySet()) {
            String text = text(claim.getValue());
            if (text != null) {
                attributes.put(CLAIM + claim.getKey(), text);
            }
        }
        UpstreamEdits edits = removeOnly;
        if (!claimsToHeaders.isEmpty()) {
            Map<String, String> set = new LinkedHashMap<>();
            claimsToHeaders.forEach((claim, header) -> {
                String text = attributes.get(CLAIM + claim);
                if (text != null && HeaderRules.isValue(text)) {
                    set.put(header, text);
                }
            });
            if (!set.isEmpty()) {
                edits = UpstreamEdits.of(set, claimsToHeaders.values(), Set.of());
            }
        }
        return new Decision.Proceed(Decision.Permit.NONE, attributes, edits);
    }

    /** A claim as text: strings as they are, numbers and booleans printed, dates in epoch seconds, lists joined by ','. */
    static String text(Object value) {
        return switch (value) {
            case null -> null;
            case String s -> s;
            case Date d -> Long.toString(d.getTime() / 1000);
            case Double d when d == Math.rint(d) && !d.isInfinite() -> Long.toString(d.longValue());
            case Number n -> n.toString();
            case Boolean b -> b.toString();
            case List<?> list -> {
                Set<String> seen = new HashSet<>();
                StringBuilder joined = new StringBuilder();
                for (Object item : list) {
                    String t = item instanceof String || item instanceof Number || item instanceof Boolean
                            ? String.valueOf(item)
                            : null;
                    if (t != null && seen.add(t)) {
                        joined.append(joined.isEmpty() ? "" : ",").append(t);
                    }
                }
                yield joined.toString();
            }
            default -> null;
        };
    }

    /** Whether claim {@code value} includes {@code wanted}: equal, a list element, or a scope word. */
    private static boolean includes(String claim, Object value, String wanted) {
        if (value instanceof List<?> list) {
            return list.stream().anyMatch(item -> wanted.equals(text(item)));
        }
        String text = text(value);
        if (text == null) {
            return false;
        }
        if (claim.equals("scope") || claim.equals("scp")) {
            for (String word : text.split(" ")) {
                if (word.equals(wanted)) {
                    return true;
                }
            }
            return false;
        }
        return text.equals(wanted);
    }

    private static Decision.Reject invalid(String description) {
        return new Decision.Reject(
                401, "invalid_token", description, Map.of("WWW-Authenticate", challenge("invalid_token", description)));
    }

    private static Decision.Reject insufficient(String description) {
        return new Decision.Reject(
                403,
                "insufficient_scope",
                description,
                Map.of("WWW-Authenticate", challenge("insufficient_scope", description)));
    }

    /** An RFC 6750 challenge; the description keeps to the characters its grammar allows. */
    static String challenge(String error, String description) {
        StringBuilder safe = new StringBuilder(description.length());
        for (int i = 0; i < description.length(); i++) {
            char c = description.charAt(i);
            safe.append(c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' ? c : '\'');
        }
        return "Bearer error=\"" + error + "\", error_description=\"" + safe + "\"";
    }
}
