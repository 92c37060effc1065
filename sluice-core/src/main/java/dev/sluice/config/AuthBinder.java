package dev.sluice.config;

import com.nimbusds.jose.jwk.JWKSet;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/**
 * Binds the authentication filters, {@code jwt:} and {@code api-key:}. Files they name are read
 * here (relative names against the configuration file's directory), so {@code sluice check} finds
 * an unreadable key file, a JWKS that does not parse or an unset variable before the gateway runs.
 */
final class AuthBinder {

    static final List<String> ALGORITHMS = List.of(
            "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512");
    private static final String ALGORITHMS_EXPECTED = "one of " + String.join(", ", ALGORITHMS);

    private final Path base;
    private final List<Problem> problems;
    private final UnaryOperator<String> env;

    AuthBinder(Path base, List<Problem> problems) {
        this(base, problems, System::getenv);
    }

    AuthBinder(Path base, List<Problem> problems, UnaryOperator<String> env) {
        this.base = base;
        this.problems = problems;
        this.env = env;
    }

    Optional<FilterConfig> jwt(Object body, String path) {
        Optional<Mapping> section = Mapping.of(body, path, "a mapping with jwks, issuer and audience", problems);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly(
                "jwks",
                "jwks-file",
                "jwks-cache",
                "secret-env",
                "issuer",
                "audience",
                "required-claims",
                "clock-skew",
                "algorithms",
                "claims-to-headers");
        int before = problems.size();
        List<String> sources = new ArrayList<>();
        for (String key : List.of("jwks", "jwks-file", "secret-env")) {
            if (m.has(key)) {
                sources.add(key);
            }
        }
        if (sources.isEmpty()) {
            problems.add(new Problem(
                    path, "no keys (expected: one of jwks (a URL), jwks-file (a path) or secret-env (a variable))"));
        } else if (sources.size() > 1) {
            problems.add(new Problem(
                    path,
                    String.join(" and ", sources) + " both set (expected: one key source; no RSA/EC and HMAC keys"
                            + " together)"));
        }
        Duration cache = m.duration("jwks-cache", Duration.ofMinutes(5));
        if (m.has("jwks-cache") && !m.has("jwks")) {
            m.problem("jwks-cache", "set without jwks (expected: jwks-cache only with a jwks URL)");
        }
        Optional<FilterConfig.Jwt.Keys> keys = Optional.empty();
        if (sources.size() == 1) {
            keys = switch (sources.getFirst()) {
                case "jwks" -> jwksUrl(m, cache);
                case "jwks-file" -> jwksFile(m);
                default -> secret(m);
            };
        }
        boolean hmac = sources.size() == 1 && sources.getFirst().equals("secret-env");
        List<String> algorithms = algorithms(m, hmac);
        Optional<String> issuer = m.string("issuer", "the issuer's identifier, such as https://idp.example/");
        List<String> audience = stringOrList(m, "audience", "an audience, or a list of them");
        List<FilterConfig.Jwt.ClaimRule> rules = claimRules(m);
        Duration skew = m.has("clock-skew") && "0s".equals(m.raw("clock-skew"))
                ? Duration.ZERO
                : m.duration("clock-skew", Duration.ofSeconds(60));
        Map<String, String> claimsToHeaders = new LinkedHashMap<>();
        m.mapping("claims-to-headers", "a mapping of claim name to header name, such as {sub: x-user-id}")
                .ifPresent(c -> {
                    for (Map.Entry<String, Object> e : c.entries()) {
                        if (e.getValue() instanceof String header && Headers.isToken(header)) {
                            claimsToHeaders.put(e.getKey(), header.toLowerCase(Locale.ROOT));
                        } else {
                            c.problem(e.getKey(), Mapping.describe(e.getValue()) + " (expected: a header name)");
                        }
                    }
                });
        if (problems.size() != before || keys.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                new FilterConfig.Jwt(keys.get(), issuer, audience, rules, skew, algorithms, claimsToHeaders));
    }

    private Optional<FilterConfig.Jwt.Keys> jwksUrl(Mapping m, Duration cache) {
        Optional<String> text = m.requiredString("jwks", "an http:// or https:// URL of a JWKS");
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            URI url = new URI(text.get());
            String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
            if ((scheme.equals("http") || scheme.equals("https"))
                    && url.getHost() != null
                    && !url.getHost().isEmpty()
                    && url.getPort() <= 65535) {
                url.toURL(); // the URL nimbus fetches
                return Optional.of(new FilterConfig.Jwt.JwksUrl(url, cache));
            }
        } catch (URISyntaxException | IllegalArgumentException | java.net.MalformedURLException e) {
            // below
        }
        m.problem(
                "jwks",
                "'" + Redact.url(text.get()) + "' (expected: an http:// or https:// URL of a JWKS, such as"
                        + " https://idp.example/.well-known/jwks.json)");
        return Optional.empty();
    }

    private Optional<FilterConfig.Jwt.Keys> jwksFile(Mapping m) {
        Optional<String> name = m.requiredString("jwks-file", "the path of a JWKS file");
        if (name.isEmpty()) {
            return Optional.empty();
        }
        Path file = base.resolve(name.get());
        JWKSet set;
        try {
            set = JWKSet.load(file.toFile());
        } catch (NoSuchFileException | java.io.FileNotFoundException e) {
            m.problem("jwks-file", "'" + file + "' does not exist (expected: a readable JWKS file)");
            return Optional.empty();
        } catch (IOException e) {
            m.problem("jwks-file", "'" + file + "' cannot be read: " + e.getMessage() + " (expected: a JWKS file)");
            return Optional.empty();
        } catch (ParseException e) {
            m.problem("jwks-file", "'" + file + "' is not a JWKS (expected: JSON such as {\"keys\": [..]})");
            return Optional.empty();
        }
        if (set.toPublicJWKSet().isEmpty()) {
            m.problem("jwks-file", "'" + file + "' has no public key (expected: at least one RSA or EC key)");
            return Optional.empty();
        }
        return Optional.of(new FilterConfig.Jwt.JwksFile(file));
    }

    private Optional<FilterConfig.Jwt.Keys> secret(Mapping m) {
        Optional<String> variable = m.requiredString("secret-env", "the name of an environment variable");
        if (variable.isEmpty()) {
            return Optional.empty();
        }
        String value = env.apply(variable.get());
        if (value == null) {
            m.problem("secret-env", "'" + variable.get() + "' is not set (expected: a variable holding the secret)");
            return Optional.empty();
        }
        byte[] secret = value.getBytes(StandardCharsets.UTF_8);
        if (secret.length < 32) {
            m.problem(
                    "secret-env",
                    "'" + variable.get() + "' holds " + secret.length
                            + " bytes (expected: a secret of at least 32 bytes)");
            return Optional.empty();
        }
        return Optional.of(new FilterConfig.Jwt.Secret(variable.get(), secret));
    }

    private List<String> algorithms(Mapping m, boolean hmac) {
        if (!m.has("algorithms")) {
            return hmac ? FilterConfig.Jwt.HMAC_DEFAULT : FilterConfig.Jwt.ASYMMETRIC_DEFAULT;
        }
        List<String> algorithms = new ArrayList<>();
        Optional<List<?>> list = m.list("algorithms", "a list of JWS algorithms, such as [RS256, ES256]");
        if (list.isEmpty()) {
            return algorithms;
        }
        if (list.get().isEmpty()) {
            m.problem("algorithms", "[] (expected: at least one algorithm, " + ALGORITHMS_EXPECTED + ")");
        }
        for (int i = 0; i < list.get().size(); i++) {
            Object item = list.get().get(i);
            String at = m.child("algorithms") + "[" + i + "]";
            if (item instanceof String s && s.equalsIgnoreCase("none")) {
                problems.add(new Problem(
                        at,
                        "'none' is never accepted: an unsigned token proves nothing (expected: " + ALGORITHMS_EXPECTED
                                + ")"));
            } else if (!(item instanceof String s) || !ALGORITHMS.contains(s)) {
                problems.add(new Problem(at, Mapping.describe(item) + " (expected: " + ALGORITHMS_EXPECTED + ")"));
            } else if (s.startsWith("HS") != hmac) {
                problems.add(new Problem(
                        at,
                        "'" + s + "' "
                                + (hmac
                                        ? "needs an RSA or EC key set (expected: HS256, HS384 or HS512 with secret-env)"
                                        : "needs a shared secret (expected: RS*, PS* or ES* with a JWKS; HS* only with"
                                                + " secret-env)")));
            } else {
                algorithms.add(s);
            }
        }
        return algorithms;
    }

    private List<String> stringOrList(Mapping m, String key, String expected) {
        if (!m.has(key)) {
            return List.of();
        }
        Object value = m.raw(key);
        if (value instanceof String s && !s.isBlank()) {
            return List.of(s);
        }
        if (value instanceof List<?> list && !list.isEmpty()) {
            List<String> values = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                if (list.get(i) instanceof String s && !s.isBlank()) {
                    values.add(s);
                } else {
                    problems.add(new Problem(
                            m.child(key) + "[" + i + "]", Mapping.describe(list.get(i)) + " (expected: text)"));
                }
            }
            return values;
        }
        m.problem(key, Mapping.describe(value) + " (expected: " + expected + ")");
        return List.of();
    }

    /** {@code required-claims: [email, {scope: orders:read}, {roles: [a, b]}]}. */
    private List<FilterConfig.Jwt.ClaimRule> claimRules(Mapping m) {
        List<FilterConfig.Jwt.ClaimRule> rules = new ArrayList<>();
        String expected = "a list of claim names or {claim: value} rules, such as [email, {scope: orders:read}]";
        Optional<List<?>> list = m.list("required-claims", expected);
        if (list.isEmpty()) {
            return rules;
        }
        for (int i = 0; i < list.get().size(); i++) {
            Object item = list.get().get(i);
            String at = m.child("required-claims") + "[" + i + "]";
            if (item instanceof String claim && !claim.isBlank()) {
                rules.add(new FilterConfig.Jwt.ClaimRule(claim, List.of()));
                continue;
            }
            if (item instanceof Map<?, ?> rule && rule.size() == 1) {
                String claim = String.valueOf(rule.keySet().iterator().next());
                Object value = rule.values().iterator().next();
                List<String> values = new ArrayList<>();
                if (value instanceof String || value instanceof Number || value instanceof Boolean) {
                    values.add(String.valueOf(value));
                } else if (value instanceof List<?> l && !l.isEmpty()) {
                    l.forEach(v -> values.add(String.valueOf(v)));
                }
                if (!values.isEmpty() && !claim.isBlank()) {
                    rules.add(new FilterConfig.Jwt.ClaimRule(claim, values));
                    continue;
                }
            }
            problems.add(new Problem(at, Mapping.describe(item) + " (expected: a claim name or {claim: value})"));
        }
        return rules;
    }

    Optional<FilterConfig> apiKey(Object body, String path) {
        Optional<Mapping> section = Mapping.of(body, path, "a mapping with header or query, and keys-file", problems);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("header", "query", "keys-file", "keys-env");
        int before = problems.size();
        Optional<String> header = m.string("header", "a header name such as X-Api-Key");
        Optional<String> query = m.string("query", "a query parameter name such as api_key");
        if (header.isPresent() && !Headers.isToken(header.get())) {
            m.problem("header", "'" + header.get() + "' (expected: a header name such as X-Api-Key)");
        }
        if (query.isPresent() && query.get().isBlank()) {
            m.problem("query", "'' (expected: a query parameter name such as api_key)");
        }
        if (header.isPresent() && query.isPresent()) {
            problems.add(new Problem(path, "header and query both set (expected: one place for the key)"));
        }
        if (header.isEmpty() && query.isEmpty()) {
            header = Optional.of("x-api-key");
        }
        Map<String, String> keys = Map.of();
        if (m.has("keys-file") == m.has("keys-env")) {
            problems.add(new Problem(
                    path,
                    (m.has("keys-file") ? "keys-file and keys-env both set" : "no keys")
                            + " (expected: one of keys-file (a path) or keys-env (a variable))"));
        } else if (m.has("keys-file")) {
            Optional<String> name = m.requiredString("keys-file", "the path of a keys file");
            if (name.isPresent()) {
                Path file = base.resolve(name.get());
                try {
                    keys = keys(Files.readString(file, StandardCharsets.UTF_8), m, "keys-file", "'" + file + "'");
                } catch (NoSuchFileException e) {
                    m.problem("keys-file", "'" + file + "' does not exist (expected: a readable keys file)");
                } catch (IOException e) {
                    m.problem("keys-file", "'" + file + "' cannot be read: " + e + " (expected: a keys file)");
                }
            }
        } else {
            Optional<String> variable = m.requiredString("keys-env", "the name of an environment variable");
            if (variable.isPresent()) {
                String value = env.apply(variable.get());
                if (value == null) {
                    m.problem("keys-env", "'" + variable.get() + "' is not set (expected: a variable holding keys)");
                } else {
                    keys = keys(value, m, "keys-env", "'" + variable.get() + "'");
                }
            }
        }
        if (problems.size() != before) {
            return Optional.empty();
        }
        return Optional.of(new FilterConfig.ApiKey(header.map(h -> h.toLowerCase(Locale.ROOT)), query, keys));
    }

    /**
     * The keys of a keys file or variable: a YAML mapping of key name to the key's SHA-256 in hex,
     * such as one {@code ci: 9f86d0...} per line.
     */
    private Map<String, String> keys(String text, Mapping m, String key, String source) {
        String expected = "a mapping of key name to the key's SHA-256 in hex, one 'name: sha256hex' per line";
        Object document;
        try {
            document = Includes.load(text, source); // nesting bounded, as every file the loader reads
        } catch (YamlEngineException e) {
            m.problem(key, source + " does not parse (expected: " + expected + ")");
            return Map.of();
        }
        if (!(document instanceof Map<?, ?> map) || map.isEmpty()) {
            // a string here may well be a key itself, given where its hash belongs: never shown
            String held = document instanceof String ? "a string" : Mapping.describe(document);
            m.problem(key, source + " holds " + held + " (expected: " + expected + ")");
            return Map.of();
        }
        Map<String, String> keys = new LinkedHashMap<>();
        Set<String> hashes = new java.util.HashSet<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String name = String.valueOf(e.getKey());
            String hash = e.getValue() instanceof String s ? s.toLowerCase(Locale.ROOT) : "";
            if (!ConfigLoader.isName(name)) {
                m.problem(key, source + ": key name '" + name + "' (expected: " + ConfigLoader.NAME_EXPECTED + ")");
            } else if (hash.length() != 64 || !HexFormat.isHexDigit(hash.charAt(0)) || !isHex(hash)) {
                m.problem(
                        key,
                        source + ": key '" + name + "' is not a SHA-256 (expected: 64 hex digits, such as the output"
                                + " of: printf %s \"$KEY\" | sha256sum)");
            } else if (!hashes.add(hash)) {
                m.problem(key, source + ": key '" + name + "' has the hash of another key (expected: distinct keys)");
            } else {
                keys.put(name, hash);
            }
        }
        return keys;
    }

    private static boolean isHex(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (!HexFormat.isHexDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
