package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a composition's status and completeness depend on: {@code status-from: <part>} (the
 * response's status follows that part when it fails) and {@code require: [parts]} (all or nothing
 * for those parts). Applied per response by {@code dev.sluice.compose.Completeness}.
 *
 * @param statusFrom the part whose failure sets the response's status, if any
 * @param require the parts without which the response is an error (or, once its head is out, aborted)
 */
public record Requirements(Optional<String> statusFrom, List<String> require) {

    /** Neither key: the composition's status is 200 whatever its parts do. */
    public static final Requirements NONE = new Requirements(Optional.empty(), List.of());

    public Requirements {
        requireNonNull(statusFrom, "statusFrom");
        require = List.copyOf(require);
    }

    /** Whether either key is set: only then does the plan hold its head for some part. */
    public boolean any() {
        return statusFrom.isPresent() || !require.isEmpty();
    }

    /**
     * Binds {@code status-from} and {@code require} of a {@code compose:} mapping; a name that is not
     * one of {@code parts} is a problem by path.
     */
    static Requirements bind(Mapping m, Set<String> parts) {
        Optional<String> statusFrom = m.string("status-from", "a part name");
        statusFrom.ifPresent(name -> {
            if (!parts.contains(name)) {
                m.problem("status-from", unknown(name, parts));
            }
        });
        List<String> require = new ArrayList<>();
        m.list("require", "a list of part names").ifPresent(list -> {
            for (int i = 0; i < list.size(); i++) {
                Object name = list.get(i);
                if (!(name instanceof String s) || !parts.contains(s)) {
                    m.problem("require[" + i + "]", unknown(name, parts));
                } else if (require.contains(s)) {
                    m.problem("require[" + i + "]", "'" + s + "' is listed twice (expected: each part once)");
                } else {
                    require.add(s);
                }
            }
        });
        return new Requirements(statusFrom, require);
    }

    private static String unknown(Object name, Set<String> parts) {
        return Mapping.describe(name) + " is not a part of this composition (expected: one of "
                + String.join(", ", parts) + ")";
    }
}
