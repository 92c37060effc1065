package dev.sluice.auth;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.FilterConfig;
import dev.sluice.http.QueryString;
import dev.sluice.policy.Decision;
import dev.sluice.policy.InboundPolicy;
import dev.sluice.policy.UpstreamEdits;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code api-key:}: a request must carry one of the configured keys, in a header or a query
 * parameter; the gateway holds only their SHA-256. The presented key is hashed and compared with
 * every stored hash in constant time ({@link MessageDigest#isEqual}), all of them every time, so the
 * answer takes as long whichever key matched, or none. The key's name becomes the request's {@code
 * api-key} attribute; the key itself never goes upstream (its header is removed, its query
 * parameter dropped).
 */
public final class ApiKeyPolicy implements InboundPolicy {

    private final String header; // or null
    private final String query; // or null
    private final byte[][] hashes;
    private final Decision.Proceed[] admitted; // per key: its name as attribute, the key stripped
    private final Decision.Reject missing;
    private final Decision.Reject unknown;

    public ApiKeyPolicy(FilterConfig.ApiKey config) {
        requireNonNull(config, "config");
        this.header = config.header().orElse(null);
        this.query = config.query().orElse(null);
        if (config.keys().isEmpty()) {
            throw new IllegalArgumentException("api-key: no keys (expected: at least one)");
        }
        UpstreamEdits strip = UpstreamEdits.of(
                Map.of(), header == null ? List.of() : List.of(header), query == null ? Set.of() : Set.of(query));
        this.hashes = new byte[config.keys().size()][];
        this.admitted = new Decision.Proceed[hashes.length];
        int i = 0;
        for (Map.Entry<String, String> key : config.keys().entrySet()) {
            hashes[i] = HexFormat.of().parseHex(key.getValue());
            if (hashes[i].length != 32) {
                throw new IllegalArgumentException(
                        "api-key: key '" + key.getKey() + "' (expected: a SHA-256 of 64 hex digits)");
            }
            admitted[i] = new Decision.Proceed(Decision.Permit.NONE, Map.of(API_KEY, key.getKey()), strip);
            i++;
        }
        String where = header != null ? "header " + header : "query parameter " + query;
        Map<String, String> challenge = Map.of("WWW-Authenticate", "ApiKey realm=\"sluice\"");
        this.missing = new Decision.Reject(401, "unauthorized", "an API key is required in the " + where, challenge);
        this.unknown = new Decision.Reject(401, "invalid_api_key", "the API key is not valid", challenge);
    }

    @Override
    public String name() {
        return "api-key";
    }

    @Override
    public Decision admit(Inbound request) {
        String presented = header != null ? request.header(header) : QueryString.first(request.query(), query);
        if (presented == null || presented.isEmpty()) {
            return missing;
        }
        byte[] hash = sha256(presented);
        int match = -1;
        for (int i = 0; i < hashes.length; i++) { // every one, whatever matched
            if (MessageDigest.isEqual(hash, hashes[i])) {
                match = i;
            }
        }
        return match < 0 ? unknown : admitted[match];
    }

    /** The lower-case hex SHA-256 of a key's UTF-8 bytes: what a keys file holds for it. */
    public static String hash(String key) {
        return HexFormat.of().formatHex(sha256(key));
    }

    private static byte[] sha256(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
