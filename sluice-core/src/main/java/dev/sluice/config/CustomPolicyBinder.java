package dev.sluice.config;

import dev.sluice.policy.InboundPolicy;
import dev.sluice.spi.PolicyFactory;
import dev.sluice.spi.PolicySettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Binds a {@code custom} filter, {@code custom: {policy: NAME, settings: {..}}}: the {@link
 * PolicyFactory} of that name among those the class path registers ({@link ServiceLoader}, looked up
 * once per load, and only by a configuration that has a {@code custom} filter), and a policy made from
 * the settings once, so that the factory's refusal of a setting is a problem by path with the others.
 */
final class CustomPolicyBinder {

    private static final String POLICY_EXPECTED = "the name of a PolicyFactory on the class path";

    private final List<Problem> problems;
    private Map<String, List<PolicyFactory>> factories; // by name; made on the first custom filter

    CustomPolicyBinder(List<Problem> problems) {
        this.problems = problems;
    }

    Optional<FilterConfig> custom(Object body, String path) {
        Optional<Mapping> section = Mapping.of(body, path, "a mapping with policy and optional settings", problems);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("policy", "settings");
        int before = problems.size();
        Optional<String> name = m.requiredString("policy", POLICY_EXPECTED);
        PolicySettings settings = PolicySettings.EMPTY;
        if (m.has("settings")) {
            Object raw = m.raw("settings");
            if (raw instanceof Map<?, ?> map) {
                settings = PolicySettings.of(map);
            } else if (raw != null) {
                m.problem("settings", Mapping.describe(raw) + " (expected: a mapping of the policy's settings)");
            }
        }
        if (name.isEmpty() || problems.size() != before) {
            return Optional.empty();
        }
        Optional<PolicyFactory> factory = factory(name.get(), m);
        if (factory.isEmpty()) {
            return Optional.empty();
        }
        String settingsPath = m.child("settings");
        try {
            InboundPolicy made = factory.get().create(settings);
            if (made == null) {
                m.problem(
                        "policy",
                        "'" + name.get() + "' (" + factory.get().getClass().getName()
                                + ") made no policy (expected: create returns an InboundPolicy)");
                return Optional.empty();
            }
        } catch (PolicySettings.Invalid e) {
            problems.add(new Problem(settingsPath + "." + e.key(), e.problem()));
            return Optional.empty();
        } catch (RuntimeException | LinkageError e) {
            problems.add(new Problem(
                    settingsPath,
                    "policy '" + name.get() + "' (" + factory.get().getClass().getName() + ") refused its settings: "
                            + e.getClass().getSimpleName() + ": " + e.getMessage()));
            return Optional.empty();
        }
        return Optional.of(new FilterConfig.Custom(factory.get(), settings));
    }

    private Optional<PolicyFactory> factory(String name, Mapping m) {
        if (factories == null) {
            factories = new TreeMap<>();
            try {
                for (PolicyFactory factory : ServiceLoader.load(PolicyFactory.class)) {
                    factories
                            .computeIfAbsent(factory.name(), n -> new ArrayList<>())
                            .add(factory);
                }
            } catch (ServiceConfigurationError e) {
                m.problem(
                        "policy",
                        "the class path's policies could not be loaded: " + e.getMessage()
                                + " (expected: every class named in META-INF/services/dev.sluice.spi.PolicyFactory"
                                + " public, with a public no-argument constructor)");
                return Optional.empty();
            }
        }
        List<PolicyFactory> named = factories.getOrDefault(name, List.of());
        Optional<String> byClass = factories.values().stream()
                .flatMap(List::stream)
                .filter(f -> f.getClass().getName().equals(name))
                .map(PolicyFactory::name)
                .findFirst();
        if (named.isEmpty() && byClass.isPresent()) { // the '- class: com.acme...' habit
            m.problem(
                    "policy",
                    "'" + name + "' is the class of the policy named '" + byClass.get()
                            + "' (expected: the policy's name, policy: " + byClass.get() + ")");
            return Optional.empty();
        }
        if (named.isEmpty()) {
            m.problem(
                    "policy",
                    "'" + name + "' is not a policy on the class path (expected: " + POLICY_EXPECTED
                            + ", registered in META-INF/services/dev.sluice.spi.PolicyFactory; "
                            + (factories.isEmpty()
                                    ? "there is none"
                                    : "there are " + String.join(", ", factories.keySet()))
                            + ")");
            return Optional.empty();
        }
        if (named.size() > 1) {
            m.problem(
                    "policy",
                    "'" + name + "' is the name of " + named.size() + " factories on the class path: "
                            + String.join(
                                    ", ",
                                    named.stream()
                                            .map(f -> f.getClass().getName())
                                            .toList())
                            + " (expected: one PolicyFactory per name)");
            return Optional.empty();
        }
        return Optional.of(named.getFirst());
    }
}
