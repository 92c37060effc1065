package dev.sluice.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import dev.sluice.policy.Decision;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ApiKeyPolicyTest {

    private static final Map<String, String> KEYS =
            Map.of("ci", ApiKeyPolicy.hash("ci-secret-1"), "web", ApiKeyPolicy.hash("web-secret-2"));

    @Test
    void aKnownKeyInTheHeaderProceedsUnderItsNameAndIsNeverForwarded() {
        ApiKeyPolicy policy =
                new ApiKeyPolicy(new FilterConfig.ApiKey(Optional.of("x-api-key"), Optional.empty(), KEYS));
        Decision d = policy.admit(Tokens.request(Map.of("X-Api-Key", "web-secret-2")));
        assertThat(d).isInstanceOf(Decision.Proceed.class);
        Decision.Proceed p = (Decision.Proceed) d;
        assertThat(p.attributes()).containsExactly(Map.entry("api-key", "web"));
        assertThat(p.edits().removes("X-API-KEY")).isTrue();
        assertThat(p.edits().set()).isEmpty();
        assertThat(((Decision.Proceed) policy.admit(Tokens.request(Map.of("x-api-key", "ci-secret-1")))).attributes())
                .containsEntry("api-key", "ci");
    }

    @Test
    void aMissingOrUnknownKeyIsRefused() {
        ApiKeyPolicy policy =
                new ApiKeyPolicy(new FilterConfig.ApiKey(Optional.of("x-api-key"), Optional.empty(), KEYS));
        Decision.Reject missing = (Decision.Reject) policy.admit(Tokens.request(Map.of()));
        assertThat(missing.status()).isEqualTo(401);
        assertThat(missing.code()).isEqualTo("unauthorized");
        assertThat(missing.message()).contains("x-api-key");
        Decision.Reject unknown = (Decision.Reject) policy.admit(Tokens.request(Map.of("X-Api-Key", "web-secret-3")));
        assertThat(unknown.status()).isEqualTo(401);
        assertThat(unknown.code()).isEqualTo("invalid_api_key");
        assertThat(unknown.message()).doesNotContain("web-secret-3");
        assertThat(policy.admit(Tokens.request(Map.of("X-Api-Key", ApiKeyPolicy.hash("web-secret-2")))))
                .as("the stored hash is not a key")
                .isInstanceOf(Decision.Reject.class);
    }

    @Test
    void aKeyInTheQueryIsReadDecodedAndDroppedFromTheForwardedQuery() {
        ApiKeyPolicy policy = new ApiKeyPolicy(new FilterConfig.ApiKey(Optional.empty(), Optional.of("api_key"), KEYS));
        Decision d = policy.admit(Tokens.request(Map.of(), "page=2&api_key=ci-secret-1&sort=a"));
        assertThat(d).isInstanceOf(Decision.Proceed.class);
        Decision.Proceed p = (Decision.Proceed) d;
        assertThat(p.attributes()).containsEntry("api-key", "ci");
        assertThat(p.edits().query("page=2&api_key=ci-secret-1&sort=a")).isEqualTo("page=2&sort=a");
        assertThat(p.edits().query("api%5Fkey=x&api_key=y"))
                .as("every copy, however encoded")
                .isNull();
        assertThat(policy.admit(Tokens.request(Map.of(), "api_key=ci%2Dsecret%2D1")))
                .as("percent-decoded")
                .isInstanceOf(Decision.Proceed.class);
        assertThat(policy.admit(Tokens.request(Map.of("X-Api-Key", "ci-secret-1"), "page=1")))
                .as("only the query counts")
                .isInstanceOf(Decision.Reject.class);
    }

    @Test
    void theHashIsTheHexSha256OfTheKey() {
        assertThat(ApiKeyPolicy.hash("test"))
                .isEqualTo("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    }
}
