package dev.sluice.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The typed, read-only view a factory reads its settings through; every refusal names the key's path. */
class PolicySettingsTest {

    private static PolicySettings settings() {
        Map<String, Object> limits = new LinkedHashMap<>();
        limits.put("burst", 20);
        limits.put("strict", true);
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("name", "acme");
        all.put("port", 8080);
        all.put("tags", new ArrayList<>(List.of("a", 1, false)));
        all.put("limits", limits);
        all.put("empty", null);
        return PolicySettings.of(all);
    }

    @Test
    void valuesReadAsTheirTypesAndScalarsAsText() {
        PolicySettings s = settings();
        assertThat(s.keys()).containsExactly("name", "port", "tags", "limits", "empty");
        assertThat(s.require("name")).isEqualTo("acme");
        assertThat(s.require("port")).isEqualTo("8080");
        assertThat(s.integer("port", 0)).isEqualTo(8080);
        assertThat(s.integer("absent", 7)).isEqualTo(7);
        assertThat(s.strings("tags")).containsExactly("a", "1", "false");
        assertThat(s.settings("limits").integer("burst", 0)).isEqualTo(20);
        assertThat(s.settings("limits").bool("strict", false)).isTrue();
        assertThat(s.map("limits")).containsExactly(Map.entry("burst", "20"), Map.entry("strict", "true"));
        assertThat(s.string("absent")).isEmpty();
        assertThat(s.settings("absent").keys()).isEmpty();
    }

    @Test
    void aRefusalNamesTheKeysPathNestedMappingsIncluded() {
        PolicySettings s = settings();
        assertThatThrownBy(() -> s.require("absent", "a tenant"))
                .isInstanceOfSatisfying(PolicySettings.Invalid.class, e -> {
                    assertThat(e.key()).isEqualTo("absent");
                    assertThat(e.problem()).isEqualTo("missing (expected: a tenant)");
                });
        assertThatThrownBy(() -> s.require("empty"))
                .isInstanceOfSatisfying(
                        PolicySettings.Invalid.class,
                        e -> assertThat(e.problem()).isEqualTo("no value (expected: a value)"));
        assertThatThrownBy(() -> s.integer("name", 0))
                .isInstanceOfSatisfying(
                        PolicySettings.Invalid.class,
                        e -> assertThat(e.problem()).isEqualTo("'acme' (expected: a whole number)"));
        assertThatThrownBy(() -> s.settings("limits").bool("burst", false))
                .isInstanceOfSatisfying(
                        PolicySettings.Invalid.class, e -> assertThat(e.key()).isEqualTo("limits.burst"));
        assertThatThrownBy(() -> s.settings("limits").allowOnly("burst"))
                .isInstanceOfSatisfying(
                        PolicySettings.Invalid.class, e -> assertThat(e.key()).isEqualTo("limits.strict"));
        assertThatThrownBy(() -> s.strings("limits"))
                .isInstanceOfSatisfying(
                        PolicySettings.Invalid.class,
                        e -> assertThat(e.problem()).isEqualTo("a mapping (expected: a list of values)"));
        assertThatThrownBy(() -> s.settings("tags")).isInstanceOf(PolicySettings.Invalid.class);
    }

    @Test
    void theViewIsACopyThatNobodyChangesAndItsTextNamesNoValue() {
        Map<String, Object> source = new LinkedHashMap<>(Map.of("secret", "hunter2", "list", new ArrayList<>()));
        PolicySettings s = PolicySettings.of(source);
        source.put("secret", "changed");
        assertThat(s.require("secret")).isEqualTo("hunter2");
        assertThat(s.toString()).contains("secret").doesNotContain("hunter2");
        assertThat(s).isEqualTo(PolicySettings.of(Map.of("secret", "hunter2", "list", List.of())));
        assertThatThrownBy(() -> s.keys().remove("secret")).isInstanceOf(UnsupportedOperationException.class);
    }
}
