package dev.sluice.policy;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an admitted request's response carries besides what its route produced, decided by its
 * policies: headers set on the response head (replacing any the upstream sent: {@code
 * Access-Control-Allow-Origin}, {@code RateLimit-Remaining}) and tokens added to {@code Vary}
 * (merged with the upstream's, never repeated: {@code Origin}). Engines apply it, in {@link
 * #applyTo}, to every response head of the exchange: a proxied response, a composition, and the
 * gateway's own error answers after admission (a {@code 502}, a {@code 504}). Immutable; {@link
 * #NONE} is never applied.
 */
public final class ResponseEdits {

    /** No edit. */
    public static final ResponseEdits NONE = new ResponseEdits(Map.of(), List.of());

    private static final String VARY = "Vary";

    private final Map<String, String> set;
    private final List<String> vary;

    private ResponseEdits(Map<String, String> set, List<String> vary) {
        this.set = set;
        this.vary = vary;
    }

    /**
     * @param set header name → value, set on the response head, after the upstream's and the route's
     *     {@code response-headers}
     * @param vary tokens added to {@code Vary} unless it lists them already (any case)
     */
    public static ResponseEdits of(Map<String, String> set, Collection<String> vary) {
        requireNonNull(set, "set");
        requireNonNull(vary, "vary");
        if (set.isEmpty() && vary.isEmpty()) {
            return NONE;
        }
        return new ResponseEdits(
                Collections.unmodifiableMap(new LinkedHashMap<>(set)), List.copyOf(new ArrayList<>(vary)));
    }

    /** Headers set, no {@code Vary}. */
    public static ResponseEdits setting(Map<String, String> set) {
        return of(set, List.of());
    }

    /**
     * Headers set, no {@code Vary}, from a map nobody changes (a {@code Map.of}): not copied, for a
     * policy that makes one per request (the rate limit's fields).
     */
    static ResponseEdits settingUnchanged(Map<String, String> set) {
        return set.isEmpty() ? NONE : new ResponseEdits(set, List.of());
    }

    public boolean isEmpty() {
        return this == NONE;
    }

    /** The headers set, in order. */
    public Map<String, String> set() {
        return set;
    }

    /** The tokens added to {@code Vary}. */
    public List<String> vary() {
        return vary;
    }

    /** Both edits: {@code later}'s sets win over this one's; the {@code Vary} tokens of both. */
    public ResponseEdits and(ResponseEdits later) {
        if (later.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return later;
        }
        Map<String, String> sets = new LinkedHashMap<>(set);
        later.set.forEach((name, value) -> {
            sets.keySet().removeIf(name::equalsIgnoreCase);
            sets.put(name, value);
        });
        List<String> tokens = new ArrayList<>(vary);
        for (String token : later.vary) {
            if (tokens.stream().noneMatch(token::equalsIgnoreCase)) {
                tokens.add(token);
            }
        }
        return of(sets, tokens);
    }

    /** A response head an engine is about to write, as these edits see it. */
    public interface Head {
        /** Every value of header {@code name} (any case), in order; empty when none. */
        List<String> values(String name);

        /** Sets header {@code name}, replacing every value it had. */
        void set(String name, String value);
    }

    /**
     * {@link #applyTo(Head)} on a head given by its header map's own methods ({@code
     * headers::getAll, headers::set}): what each engine calls, so that none writes an adapter.
     */
    public void applyTo(
            java.util.function.Function<String, List<String>> values,
            java.util.function.BiConsumer<String, String> set) {
        applyTo(new Head() {
            @Override
            public List<String> values(String name) {
                return values.apply(name);
            }

            @Override
            public void set(String name, String value) {
                set.accept(name, value);
            }
        });
    }

    /** Applies the edits to a head: every set, then {@code Vary} with the tokens it lacked. */
    public void applyTo(Head head) {
        set.forEach(head::set);
        if (!vary.isEmpty()) {
            String merged = varyAfter(head.values(VARY));
            if (merged != null) {
                head.set(VARY, merged);
            }
        }
    }

    /**
     * {@code headers} (a rejection's) with these edits applied: what a policy's refusal after this
     * one proceeded answers with, so that a browser may read it (a {@code 401} or {@code 429} with
     * {@code Access-Control-Allow-Origin}).
     */
    public Map<String, String> onto(Map<String, String> headers) {
        if (isEmpty()) {
            return headers;
        }
        Map<String, String> out = new LinkedHashMap<>(headers);
        applyTo(new Head() {
            @Override
            public List<String> values(String name) {
                for (Map.Entry<String, String> e : out.entrySet()) {
                    if (e.getKey().equalsIgnoreCase(name)) {
                        return List.of(e.getValue());
                    }
                }
                return List.of();
            }

            @Override
            public void set(String name, String value) {
                out.keySet().removeIf(name::equalsIgnoreCase);
                out.put(name, value);
            }
        });
        return out;
    }

    /**
     * The one {@code Vary} value after adding the missing tokens to {@code existing} (the head's
     * {@code Vary} fields), or null when nothing changes ({@code Vary: *} already varies by
     * everything, or every token is listed).
     */
    String varyAfter(List<String> existing) {
        List<String> listed = new ArrayList<>();
        for (String field : existing) {
            for (String token : field.split(",")) {
                String t = token.strip();
                if (t.equals("*")) {
                    return null;
                }
                if (!t.isEmpty() && listed.stream().noneMatch(t::equalsIgnoreCase)) {
                    listed.add(t);
                }
            }
        }
        int before = listed.size();
        for (String token : vary) {
            if (listed.stream().noneMatch(token::equalsIgnoreCase)) {
                listed.add(token);
            }
        }
        return listed.size() == before ? null : String.join(", ", listed);
    }

    @Override
    public String toString() {
        return "ResponseEdits[set=" + set + ", vary=" + vary + "]";
    }
}
