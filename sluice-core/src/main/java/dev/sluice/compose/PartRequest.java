package dev.sluice.compose;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.PartConfig;
import dev.sluice.routing.PathTemplate;
import java.util.AbstractMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A composition part's upstream request, decided here once for every engine, as {@link
 * dev.sluice.routing.ProxyPath} is for a proxy: {@value #METHOD} with {@code Accept: }{@value
 * #ACCEPT}, to the part's upstream base path + its expanded {@code path}. Made once per route; {@link
 * #expand} gives one composition's {@link Targets}, which its {@link CompositionPlan} hands out with
 * {@code START} ({@link CompositionPlan#target()}).
 *
 * <p>A part's template may refer to a value in an earlier part, {@code {product:/reviewIds}} (a
 * chained part): its target is known only once that value has streamed past, so it is expanded then,
 * by the plan, with {@link Targets#target(int, Map)}.
 *
 * <p>A gRPC part's ({@code grpc-transcode}) target has no base path: it is matched against the
 * methods' bindings, and the call is made by {@link dev.sluice.transcode.TranscodedPart}.
 */
public final class PartRequest {

    /** Every part's method. */
    public static final String METHOD = "GET";

    /** Every part's {@code Accept}: a part is spliced only when it is JSON ({@link PartRules}). */
    public static final String ACCEPT = "application/json";

    private final List<PartConfig> parts;
    private final String[] basePaths;
    private final String[] fixed; // a part's whole target when its template has no placeholder, else null

    /**
     * @param parts the route's parts, in declared order
     * @param basePaths each part's upstream's base path ({@code ""} for none), by part index
     */
    public PartRequest(List<PartConfig> parts, List<String> basePaths) {
        this.parts = List.copyOf(parts);
        if (basePaths.size() != parts.size()) {
            throw new IllegalArgumentException(
                    "basePaths: " + basePaths.size() + " (expected: one per part, " + parts.size() + ")");
        }
        this.basePaths = basePaths.toArray(String[]::new);
        for (int i = 0; i < this.basePaths.length; i++) {
            if (this.parts.get(i).grpc().isPresent()) { // its target is matched against the methods' bindings
                this.basePaths[i] = "";
            }
        }
        this.fixed = new String[parts.size()];
        for (int i = 0; i < fixed.length; i++) {
            PathTemplate path = this.parts.get(i).path();
            if (path.variableNames().isEmpty()) {
                fixed[i] = this.basePaths[i] + path.expand(Map.of(), Map.of(), "");
            }
        }
    }

    /** Parts whose upstreams have no base path (tests, and plans built by hand). */
    public static PartRequest withoutBasePaths(List<PartConfig> parts) {
        return new PartRequest(parts, java.util.Collections.nCopies(parts.size(), ""));
    }

    /**
     * One composition's targets: every part's that can be expanded now, before any part is sent. A
     * chained part's template is checked with stand-in values for its references, so that a value
     * the request lacks is a 400 for it too.
     *
     * @param variables the route match's raw path variables
     * @param query the request's decoded query parameters (read only when a template asks for one)
     * @param remainder the route match's wildcard remainder
     * @throws PathTemplate.ExpansionException when a template lacks a value or a value is unsafe
     */
    public Targets expand(Map<String, String> variables, Map<String, String> query, String remainder) {
        String[] targets = fixed.clone();
        for (int i = 0; i < targets.length; i++) {
            if (targets[i] != null) {
                continue;
            }
            PathTemplate path = parts.get(i).path();
            if (parts.get(i).collection().isPresent()) { // {each}: an element's, known later
                path.expand(new Overlay(variables, STAND_IN), new Overlay(query, STAND_IN), remainder); // a check
            } else if (path.references().isEmpty()) {
                targets[i] = basePaths[i] + path.expand(variables, query, remainder);
            } else {
                path.expand(variables, new Overlay(query, STAND_IN), remainder); // only to check
            }
        }
        return new Targets(this, targets, variables, query, remainder);
    }

    private static final Map<String, String> STAND_IN = new AbstractMap<>() {
        @Override
        public String get(Object key) {
            return "x";
        }

        @Override
        public boolean containsKey(Object key) {
            return true;
        }

        @Override
        public Set<Entry<String, String>> entrySet() {
            return Set.of();
        }
    };

    /** One composition's part targets (origin form, base path included). */
    public static final class Targets {
        private final PartRequest request;
        private final String[] targets; // null for a chained part until its values are known
        private final Map<String, String> variables;
        private final Map<String, String> query;
        private final String remainder;

        private Targets(
                PartRequest request,
                String[] targets,
                Map<String, String> variables,
                Map<String, String> query,
                String remainder) {
            this.request = request;
            this.targets = targets;
            this.variables = variables;
            this.query = query;
            this.remainder = remainder;
        }

        /** Every value of the request's query parameter {@code name} ({@code each: query:ids}). */
        public List<String> queryValues(String name) {
            if (query instanceof dev.sluice.http.QueryString.Parameters parameters) {
                return parameters.all(name);
            }
            String first = query.get(name); // a map of first values only (tests): all it has
            return first == null ? List.of() : List.of(first);
        }

        /** Part {@code i}'s target; null for a chained part (see {@link #target(int, Map)}). */
        public String target(int i) {
            return targets[i];
        }

        /**
         * Chained part {@code i}'s target, its references given their values (decoded: they are
         * percent-encoded here as path variables are); or a collection part's for one element, its
         * value under {@code each}.
         *
         * @param values by reference ({@code product:/reviewIds}), or {@code each}, to its value
         * @throws PathTemplate.ExpansionException when a value is unsafe (it would make an empty path segment)
         */
        public String target(int i, Map<String, String> values) {
            requireNonNull(values, "values");
            return request.basePaths[i]
                    + request.parts
                            .get(i)
                            .path()
                            .expand(new Overlay(variables, values), new Overlay(query, values), remainder);
        }
    }

    /**
     * The route's path variables or the query parameters with the references' values (and {@code
     * each}) over them, so that neither a path variable nor a client's query parameter of that name
     * can stand in for one. A reference's name holds a {@code ':'}, which a variable's never does.
     */
    private static final class Overlay extends AbstractMap<String, String> {
        private final Map<String, String> under;
        private final Map<String, String> values;

        Overlay(Map<String, String> under, Map<String, String> values) {
            this.under = under;
            this.values = values;
        }

        @Override
        public String get(Object key) {
            if (key instanceof String name
                    && (name.indexOf(PathTemplate.REFERENCE) > 0
                            || (name.equals(PartConfig.Collection.EACH) && values.containsKey(name)))) {
                return values.get(name);
            }
            return under.get(key);
        }

        @Override
        public Set<Entry<String, String>> entrySet() {
            throw new UnsupportedOperationException("only looked up by name");
        }
    }
}
