package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.spi.PolicySettings;
import dev.sluice.spi.TestPolicies;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A {@code custom} filter binds to the factory of its name with its settings, or is a problem by path. */
class CustomPolicyConfigTest {

    private static String route(String filters) {
        return """
                upstreams:
                  app: { url: "http://127.0.0.1:19081" }
                routes:
                  - id: r
                    match: { path: "/r/**" }
                    proxy: { upstream: app }
                    filters:
                """ + filters.indent(6);
    }

    private static List<String> problems(String yaml) {
        return ConfigLoader.check(yaml, "test.yaml").stream()
                .map(Problem::toString)
                .toList();
    }

    @Test
    void aCustomFilterBindsToItsFactoryAndSettingsAndTwoLoadsAreEqual() throws Exception {
        String yaml = route("""
                - custom:
                    policy: test-stamp
                    settings: { header: x-plan, value: gold, tiers: [a, 2] }
                """);
        FilterConfig filter = ConfigLoader.parse(yaml, "test.yaml")
                .routes()
                .getFirst()
                .filters()
                .getFirst();

        assertThat(filter).isInstanceOf(FilterConfig.Custom.class);
        FilterConfig.Custom custom = (FilterConfig.Custom) filter;
        assertThat(custom.policy()).isEqualTo("test-stamp");
        assertThat(custom.factory()).isInstanceOf(TestPolicies.Stamp.class);
        assertThat(custom.settings())
                .isEqualTo(PolicySettings.of(Map.of("header", "x-plan", "value", "gold", "tiers", List.of("a", 2))));
        assertThat(custom.settings().strings("tiers")).containsExactly("a", "2");
        assertThat(ConfigLoader.parse(yaml, "test.yaml")
                        .routes()
                        .getFirst()
                        .filters()
                        .getFirst())
                .as("a reload of the same file: the same filter")
                .isEqualTo(filter);
        assertThat(custom.toString()).doesNotContain("gold");
    }

    @Test
    void anUnknownPolicyIsAProblemNamingThoseOnTheClassPath() {
        assertThat(problems(route("- custom: { policy: com.acme.TenantPolicy }")))
                .containsExactly("routes[0].filters[0].custom.policy: 'com.acme.TenantPolicy' is not a policy on the"
                        + " class path (expected: the name of a PolicyFactory on the class path, registered in"
                        + " META-INF/services/dev.sluice.spi.PolicyFactory; there are test-stamp, test-throws,"
                        + " test-twice)");
    }

    @Test
    void aFactorysClassNameIsAProblemThatSaysItsName() {
        assertThat(problems(route("- custom: { policy: dev.sluice.spi.TestPolicies$Stamp }")))
                .containsExactly("routes[0].filters[0].custom.policy: 'dev.sluice.spi.TestPolicies$Stamp' is the class"
                        + " of the policy named 'test-stamp' (expected: the policy's name, policy: test-stamp)");
    }

    @Test
    void theFactorysRefusalOfASettingIsAProblemByPathListedWithTheOthers() {
        assertThat(problems(route("""
                        - custom: { policy: test-stamp, settings: { header: x-plan } }
                        - custom: { policy: test-stamp, settings: { header: x-plan, value: v, tiers: [{a: 1}] } }
                        - custom: { policy: test-stamp, settings: { header: x-plan, value: v, colour: red } }
                        - custom: { policy: test-throws, settings: { refuse: true } }
                        - custom: { settings: [] }
                        - max-body: lots
                        """)))
                .containsExactly(
                        "routes[0].filters[0].custom.settings.value: missing (expected: a value)",
                        "routes[0].filters[1].custom.settings.tiers[0]: a mapping (expected: a value)",
                        "routes[0].filters[2].custom.settings.colour: unknown setting (expected: one of header,"
                                + " value, tiers)",
                        "routes[0].filters[3].custom.settings: policy 'test-throws' (dev.sluice.spi.TestPolicies$Throws)"
                                + " refused its settings: IllegalStateException: not today",
                        "routes[0].filters[4].custom.policy: missing (expected: the name of a PolicyFactory on the"
                                + " class path)",
                        "routes[0].filters[4].custom.settings: a list (expected: a mapping of the policy's settings)",
                        "routes[0].filters[5].max-body: 'lots' (expected: a size such as 10MiB, or none)");
    }

    @Test
    void twoFactoriesOfOneNameAreAProblem() {
        assertThat(problems(route("- custom: { policy: test-twice }")))
                .containsExactly("routes[0].filters[0].custom.policy: 'test-twice' is the name of 2 factories on the"
                        + " class path: dev.sluice.spi.TestPolicies$TwiceA, dev.sluice.spi.TestPolicies$TwiceB"
                        + " (expected: one PolicyFactory per name)");
    }
}
