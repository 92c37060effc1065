package dev.sluice.policy;

import static java.util.Objects.requireNonNull;

import dev.sluice.http.HeaderNameSet;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.QueryString;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What an admitted request's upstream requests carry besides what the client sent, decided by its
 * policies: headers set on every upstream request of the exchange (the proxied one and every
 * composition part), client headers never copied (every set name, and any other the policy names:
 * a forged {@code x-user-id}, an API key), and query parameters dropped from a forwarded query
 * string (an API key sent as {@code ?api_key=}). Immutable; {@link #NONE} costs nothing to apply.
 */
public final class UpstreamEdits {

    /** No edit. */
    public static final UpstreamEdits NONE = new UpstreamEdits(Map.of(), Set.of(), Set.of());

    private final Map<String, String> set;
    private final Set<String> removed; // lower case, the set names included
    private final HeaderNameSet removedNames; // the same, for removes()
    private final Set<String> droppedQuery;

    private UpstreamEdits(Map<String, String> set, Set<String> removed, Set<String> droppedQuery) {
        this.set = set;
        this.removed = removed;
        this.removedNames = new HeaderNameSet(removed);
        this.droppedQuery = droppedQuery;
    }

    /**
     * @param set header name → value, set on every upstream request
     * @param remove header names (any case) never copied from the client
     * @param dropQuery query parameter names (decoded) dropped from the forwarded query string
     * @throws IllegalArgumentException when a set name is not a token or a value holds a control
     *     character ({@link HeaderRules#isValue}): the engines write these into request heads as they
     *     are, so a CR LF here would be a header of its own (a custom policy that throws is answered
     *     {@code 500 policy_failed})
     */
    public static UpstreamEdits of(Map<String, String> set, Collection<String> remove, Collection<String> dropQuery) {
        requireNonNull(set, "set");
        requireNonNull(remove, "remove");
        requireNonNull(dropQuery, "dropQuery");
        set.forEach((name, value) -> {
            if (!HeaderRules.isToken(name)) {
                throw new IllegalArgumentException("set: header name of " + name.length()
                        + " characters that is not a token (expected: letters, digits and !#$%&'*+-.^_`|~)");
            }
            if (!HeaderRules.isValue(value)) { // the value is not quoted: it may be a secret
                throw new IllegalArgumentException(
                        "set: " + name + " has a control character in its value (expected: none but tab)");
            }
        });
        if (set.isEmpty() && remove.isEmpty() && dropQuery.isEmpty()) {
            return NONE;
        }
        Set<String> removed = new HashSet<>();
        remove.forEach(n -> removed.add(n.toLowerCase(Locale.ROOT)));
        set.keySet().forEach(n -> removed.add(n.toLowerCase(Locale.ROOT)));
        return new UpstreamEdits(Map.copyOf(new LinkedHashMap<>(set)), Set.copyOf(removed), Set.copyOf(dropQuery));
    }

    public boolean isEmpty() {
        return this == NONE;
    }

    /** Headers to set on every upstream request, after the copied ones. */
    public Map<String, String> set() {
        return set;
    }

    /** Whether a client header of this name (any case) must not be copied upstream. */
    public boolean removes(CharSequence name) {
        return removedNames.contains(name); // nothing lower-cased per header
    }

    /** {@code rawQuery} without the dropped parameters: null when nothing is left or it was null. */
    public String query(String rawQuery) {
        return droppedQuery.isEmpty() || rawQuery == null ? rawQuery : QueryString.without(rawQuery, droppedQuery);
    }

    /** Both edits: {@code later}'s sets win over this one's. */
    public UpstreamEdits and(UpstreamEdits later) {
        if (later.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return later;
        }
        Map<String, String> sets = new LinkedHashMap<>(set);
        sets.putAll(later.set);
        Set<String> remove = new HashSet<>(removed);
        remove.addAll(later.removed);
        Set<String> drop = new HashSet<>(droppedQuery);
        drop.addAll(later.droppedQuery);
        return of(sets, remove, drop);
    }

    @Override
    public String toString() {
        return "UpstreamEdits[set=" + set.keySet() + ", removed=" + removed + ", droppedQuery=" + droppedQuery + "]";
    }
}
