package dev.sluice.config;

import dev.sluice.routing.PathPattern;
import dev.sluice.routing.PathRewrite;
import dev.sluice.routing.PathTemplate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/** Binds a route's {@code proxy:}, {@code compose:} and {@code filters:}. */
final class TargetBinder {

    private static final String TEMPLATE_EXPECTED = "a path such as /products/{id}";

    private final Set<String> upstreams;
    private final boolean redis;
    private final List<Problem> problems;

    private final AuthBinder auth;
    private final CorsBinder cors;
    private final CustomPolicyBinder custom;
    private final TranscodeBinder transcode;

    TargetBinder(Set<String> upstreams, java.nio.file.Path base, boolean redis, List<Problem> problems) {
        this.upstreams = upstreams;
        this.redis = redis;
        this.problems = problems;
        this.auth = new AuthBinder(base, problems);
        this.cors = new CorsBinder(problems);
        this.custom = new CustomPolicyBinder(problems);
        this.transcode = new TranscodeBinder(base, problems);
    }

    Optional<Target> proxy(Mapping m, Optional<PathPattern> routePath) {
        m.allowOnly(
                "upstream",
                "backends",
                "sticky",
                "mirror",
                "strip-prefix",
                "path",
                "rewrite",
                "preserve-host",
                "timeout",
                "grpc-transcode");
        int before = problems.size();
        Optional<Backends> backends = Optional.empty();
        Optional<String> upstream;
        if (m.has("backends")) {
            if (m.has("upstream")) {
                m.problem("backends", "beside upstream (expected: one of upstream, backends)");
            }
            backends = ProxyBinder.backends(m, upstreams, problems);
            upstream = backends.map(b -> b.sides().getFirst().upstream());
        } else {
            if (m.has("sticky")) {
                m.problem("sticky", "without backends (expected: sticky only beside backends)");
            }
            upstream = upstream(m);
        }
        Optional<String> stripPrefix = m.string("strip-prefix", "a path prefix such as /api");
        if (stripPrefix.isPresent()
                && (!stripPrefix.get().startsWith("/") || stripPrefix.get().length() < 2)) {
            m.problem("strip-prefix", "'" + stripPrefix.get() + "' (expected: a path prefix such as /api)");
        }
        Optional<PathTemplate> path = Optional.empty();
        if (m.has("path")) {
            path = template(m, routePath, false);
        }
        Optional<PathRewrite> rewrite = ProxyBinder.rewrite(m, problems);
        if (rewrite.isPresent() && (path.isPresent() || stripPrefix.isPresent())) {
            m.problem(
                    "rewrite",
                    "beside " + (path.isPresent() ? "path" : "strip-prefix")
                            + " (expected: one of path, rewrite, strip-prefix)");
        }
        boolean preserveHost = m.bool("preserve-host", false);
        Optional<MirrorConfig> mirror = ProxyBinder.mirror(m, upstreams, problems);
        Optional<Duration> timeout = m.duration("timeout");
        Optional<TranscodeConfig> transcoded = Optional.empty();
        if (m.has("grpc-transcode")) {
            for (String beside : List.of("backends", "mirror", "strip-prefix", "path", "rewrite")) {
                if (m.has(beside)) { // the method decides the upstream path, and one upstream answers it
                    m.problem(beside, "beside grpc-transcode (expected: grpc-transcode with upstream only)");
                }
            }
            transcoded = transcode.transcode(m.raw("grpc-transcode"), m.child("grpc-transcode"));
        }
        if (upstream.isEmpty() || problems.size() != before) {
            return Optional.empty();
        }
        return Optional.of(new ProxyTarget(
                upstream.get(), stripPrefix, path, timeout, rewrite, preserveHost, backends, mirror, transcoded));
    }

    Optional<Target> compose(Mapping m, Optional<PathPattern> routePath) {
        m.allowOnly(
                "fanout",
                "order",
                "on-error",
                "timeout",
                "validate-json",
                "delivery",
                "parts",
                "status-from",
                "require");
        int before = problems.size();
        String fanout = m.choice("fanout", "parallel", "parallel", "sequential");
        String order = m.choice("order", "arrival", "arrival", "declared");
        String onError = m.choice("on-error", "partial", "partial", "fail");
        Duration timeout = m.duration("timeout", Duration.ofSeconds(10));
        boolean validateJson = m.bool("validate-json", false);
        List<ComposeTarget.Delivery> delivery = delivery(m);
        List<PartConfig> parts = new ArrayList<>();
        String partsExpected = "a mapping of part name to {upstream, path}";
        if (m.require("parts", partsExpected)) {
            m.mapping("parts", partsExpected).ifPresent(p -> {
                if (p.entries().isEmpty()) {
                    m.problem("parts", "no parts (expected: at least one part)");
                }
                for (Map.Entry<String, Object> e : p.entries()) {
                    part(p, e.getKey(), e.getValue(), routePath).ifPresent(parts::add);
                }
                chains(p, parts, fanout.equals("sequential"), order.equals("declared"));
            });
        }
        Requirements requirements = Requirements.bind(
                m,
                parts.stream()
                        .map(PartConfig::name)
                        .collect(java.util.stream.Collectors.toCollection(java.util.LinkedHashSet::new)));
        if (parts.isEmpty() || problems.size() != before) {
            return Optional.empty();
        }
        return Optional.of(new ComposeTarget(
                fanout.equals("sequential") ? ComposeTarget.Fanout.SEQUENTIAL : ComposeTarget.Fanout.PARALLEL,
                order.equals("declared") ? ComposeTarget.Order.DECLARED : ComposeTarget.Order.ARRIVAL,
                onError.equals("fail") ? ComposeTarget.OnError.FAIL : ComposeTarget.OnError.PARTIAL,
                timeout,
                validateJson,
                parts,
                delivery,
                requirements));
    }

    private static final String DELIVERY_EXPECTED =
            "json, ndjson, sse, multipart, negotiate, or a list of distinct formats to negotiate among";

    /** {@code delivery:} a format, {@code negotiate} (all of them, JSON first), or a list of formats. */
    private static List<ComposeTarget.Delivery> delivery(Mapping m) {
        if (!m.has("delivery")) {
            return List.of(ComposeTarget.Delivery.JSON);
        }
        Object value = m.raw("delivery");
        if ("negotiate".equals(value)) {
            return List.of(ComposeTarget.Delivery.values());
        }
        List<?> names = value instanceof List<?> l ? l : List.of(value);
        List<ComposeTarget.Delivery> formats = new ArrayList<>();
        for (Object name : names) {
            ComposeTarget.Delivery format = null;
            for (ComposeTarget.Delivery d : ComposeTarget.Delivery.values()) {
                if (d.configName().equals(name)) {
                    format = d;
                }
            }
            if (format == null || formats.contains(format)) {
                m.problem("delivery", Mapping.describe(name) + " (expected: " + DELIVERY_EXPECTED + ")");
                return List.of(ComposeTarget.Delivery.JSON);
            }
            formats.add(format);
        }
        if (formats.isEmpty()) {
            m.problem("delivery", "[] (expected: " + DELIVERY_EXPECTED + ")");
            return List.of(ComposeTarget.Delivery.JSON);
        }
        return formats;
    }

    private Optional<PartConfig> part(Mapping parts, String name, Object value, Optional<PathPattern> routePath) {
        int before = problems.size();
        if (name.equals("_meta")) {
            parts.problem(name, "'_meta' is reserved for the composition's metadata (expected: another part name)");
        } else if (name.isBlank()) {
            parts.problem(name, "'" + name + "' (expected: a non-empty part name)");
        }
        Optional<Mapping> section = Mapping.of(value, parts.child(name), "a mapping with upstream and path", problems);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly(
                "upstream",
                "path",
                "optional",
                "timeout",
                "select",
                "exclude",
                "rename",
                "take",
                "max-key-bytes",
                "cache",
                "after",
                "max-value",
                "each",
                "max",
                "concurrency",
                "order",
                "grpc-transcode");
        Optional<String> upstream = upstream(m);
        Optional<PathTemplate> path =
                m.require("path", TEMPLATE_EXPECTED) ? template(m, routePath, true) : Optional.empty();
        boolean optional = m.bool("optional", false);
        Optional<Duration> timeout = m.duration("timeout");
        Optional<PartConfig.Shaping> shaping = shaping(m);
        Optional<PartCaching> cache = PartCachingBinder.cache(m);
        Optional<String> after = m.string("after", "the name of an earlier part");
        int maxValue = m.size(
                "max-value",
                PartConfig.DEFAULT_MAX_VALUE,
                1,
                "a size such as 1KiB: the longest value a reference to an earlier part takes");
        if (path.isPresent()) {
            for (String reference : path.get().references()) {
                PartConfig.Shaping.pointerProblem(PartConfig.referencedPointer(reference))
                        .ifPresent(problem -> m.problem("path", "{" + reference + "}: the pointer " + problem));
                String named = PartConfig.referencedPart(reference);
                if (after.isPresent() && !after.get().equals(named)) {
                    m.problem(
                            "path",
                            "{" + reference + "} refers to part '" + named + "' but after is '" + after.get()
                                    + "' (expected: references to the part named by after)");
                } else if (after.isEmpty()) {
                    after = Optional.of(named); // implied by the reference
                }
            }
        }
        Optional<PartConfig.Collection> collection = collection(m, path);
        if (collection.isPresent() && collection.get().queryName().isEmpty()) {
            String source = PartConfig.referencedPart(collection.get().each());
            if (after.isPresent() && !after.get().equals(source)) {
                m.problem(
                        "each",
                        "'" + collection.get().each() + "' is in part '" + source + "' but after is '" + after.get()
                                + "' (expected: the part named by after)");
            }
            after = Optional.of(source);
        }
        if (after.isEmpty() && m.has("max-value")) {
            m.problem("max-value", "without after or a reference to an earlier part (expected: with one of them)");
        }
        Optional<TranscodeConfig> grpc = Optional.empty();
        if (m.has("grpc-transcode")) {
            for (String beside : List.of("each", "cache", "select", "exclude", "rename", "take")) {
                if (m.has(beside)) { // kept simple: one call per part, its JSON relayed whole
                    m.problem(beside, "beside grpc-transcode (expected: a gRPC part without " + beside + ")");
                }
            }
            grpc = transcode.transcode(m.raw("grpc-transcode"), m.child("grpc-transcode"));
        }
        if (upstream.isEmpty() || path.isEmpty() || problems.size() != before) {
            return Optional.empty();
        }
        return Optional.of(new PartConfig(
                name,
                upstream.get(),
                path.get(),
                optional,
                timeout,
                shaping,
                after,
                maxValue,
                collection,
                cache,
                grpc));
    }

    private static final String EACH_EXPECTED =
            "part:/json/pointer, the array in an earlier part to fan out over, or query:<name>";

    /** A part's {@code each}, {@code max}, {@code concurrency} and {@code order}: a collection part's. */
    private static Optional<PartConfig.Collection> collection(Mapping m, Optional<PathTemplate> path) {
        if (!m.has("each")) {
            for (String key : List.of("max", "concurrency", "order")) {
                if (m.has(key)) {
                    m.problem(key, "without each (expected: with each, on a collection part)");
                }
            }
            return Optional.empty();
        }
        Optional<String> each = m.string("each", EACH_EXPECTED);
        int max = m.integer("max", PartConfig.Collection.DEFAULT_MAX, 1, 10_000, "a whole number from 1 to 10000");
        int concurrency = m.integer(
                "concurrency", PartConfig.Collection.DEFAULT_CONCURRENCY, 1, 1_000, "a whole number from 1 to 1000");
        String order = m.choice("order", "declared", "declared", "arrival");
        if (each.isEmpty()) {
            return Optional.empty();
        }
        String text = each.get();
        int colon = text.indexOf(PathTemplate.REFERENCE);
        if (text.startsWith(PartConfig.Collection.QUERY)) {
            if (text.length() == PartConfig.Collection.QUERY.length()) {
                m.problem("each", "'" + text + "' (expected: query:<parameter name>)");
                return Optional.empty();
            }
            colon = -2; // no pointer to check
        }
        if (colon == 0 || colon == -1) {
            m.problem("each", "'" + text + "' (expected: " + EACH_EXPECTED + ")");
            return Optional.empty();
        }
        Optional<String> pointerProblem =
                colon < 0 ? Optional.empty() : PartConfig.Shaping.pointerProblem(text.substring(colon + 1));
        if (pointerProblem.isPresent()) {
            m.problem("each", "the pointer " + pointerProblem.get());
            return Optional.empty();
        }
        if (path.isPresent()
                && (!path.get().variableNames().contains(PartConfig.Collection.EACH)
                        || !path.get().references().isEmpty())) {
            m.problem(
                    "path",
                    "'" + path.get() + "' (expected: a path with {each} and no {part:/pointer} reference, such as"
                            + " /products/{each})");
            return Optional.empty();
        }
        return Optional.of(new PartConfig.Collection(text, max, concurrency, order.equals("arrival")));
    }

    /**
     * A chained part's {@code after} must name another part of the composition, and the chains must
     * not loop: each problem by the path of the {@code after} (or implied by the {@code path}) at fault.
     */
    private void chains(Mapping section, List<PartConfig> parts, boolean sequential, boolean declared) {
        Map<String, PartConfig> byName = new java.util.HashMap<>();
        for (PartConfig part : parts) {
            byName.put(part.name(), part);
        }
        for (PartConfig part : parts) {
            if (part.after().isEmpty()) {
                continue;
            }
            String at = section.child(part.name())
                    + (part.collection().isPresent()
                            ? ".each"
                            : part.path().references().isEmpty() ? ".after" : ".path");
            String after = part.after().get();
            if (sequential) {
                problems.add(new Problem(
                        at, "a chained part in a sequential composition (expected: fanout: parallel with after)"));
            } else if (declared
                    && byName.containsKey(after)
                    && parts.indexOf(byName.get(after)) > parts.indexOf(part)) {
                // relayed first, it would wait for a value the later part may hold past its read-ahead
                problems.add(new Problem(
                        at,
                        "'" + after + "' is declared after '" + part.name()
                                + "' in a composition relayed in declared order (expected: the part it waits"
                                + " for declared first)"));
            } else if (byName.containsKey(after)
                    && byName.get(after).collection().isPresent()) {
                problems.add(new Problem(
                        at,
                        "'" + after + "' is a collection part (expected: a part with a body of its own to wait for)"));
            } else if (!byName.containsKey(after)) {
                problems.add(new Problem(
                        at,
                        "'" + after + "' is not a part of this composition (expected: one of "
                                + String.join(
                                        ", ", byName.keySet().stream().sorted().toList()) + ")"));
            } else {
                List<String> loop = new ArrayList<>(List.of(part.name()));
                String next = after;
                while (next != null && !loop.contains(next) && byName.containsKey(next)) {
                    loop.add(next);
                    next = byName.get(next).after().orElse(null);
                }
                if (part.name().equals(next)) {
                    loop.add(next);
                    problems.add(new Problem(
                            at,
                            "a cycle: " + String.join(" after ", loop)
                                    + " (expected: each part after one that does not wait for it)"));
                }
            }
        }
    }

    /** A part's {@code select}, {@code exclude}, {@code rename}, {@code take} and {@code max-key-bytes}. */
    private static Optional<PartConfig.Shaping> shaping(Mapping m) {
        if (!m.has("select") && !m.has("exclude") && !m.has("rename") && !m.has("take")) {
            if (m.has("max-key-bytes")) {
                m.problem("max-key-bytes", "without select, exclude, rename or take (expected: with one of them)");
            }
            return Optional.empty();
        }
        List<String> select = paths(m, "select");
        List<String> exclude = paths(m, "exclude");
        if (!select.isEmpty() && !exclude.isEmpty()) {
            m.problem(
                    "exclude", "select and exclude together (expected: one of them: select keeps only what it names)");
        }
        Map<String, String> rename = new java.util.LinkedHashMap<>();
        m.mapping("rename", "a mapping of member path to new name").ifPresent(r -> {
            java.util.Set<String> targets = new java.util.HashSet<>();
            for (Map.Entry<String, Object> e : r.entries()) {
                String old = e.getKey();
                Optional<String> pathProblem = PartConfig.Shaping.pathProblem(old);
                if (pathProblem.isPresent()) {
                    r.problem(old, pathProblem.get());
                    continue;
                }
                if (!(e.getValue() instanceof String to) || to.isEmpty()) {
                    r.problem(old, Mapping.describe(e.getValue()) + " (expected: a new member name)");
                    continue;
                }
                List<String> segments = PartConfig.Shaping.segments(old);
                String parent = String.join(".", segments.subList(0, segments.size() - 1));
                String sibling = parent.isEmpty() ? to : parent + "." + to;
                if (!targets.add(sibling)) {
                    r.problem(
                            old,
                            "'" + to + "' is the new name of another member already (expected: a name of its own)");
                } else if (!select.isEmpty() && !kept(select, segments)) {
                    r.problem(old, "'" + old + "' is not kept by select (expected: a selected member)");
                } else if (select.contains(sibling)
                        && rename.keySet().stream().noneMatch(sibling::equals)
                        && !r.has(sibling)) {
                    r.problem(old, "'" + to + "' is selected as a member already (expected: a name not selected)");
                } else if (exclude.stream().anyMatch(x -> under(segments, PartConfig.Shaping.segments(x)))) {
                    r.problem(old, "'" + old + "' is excluded (expected: a member that is relayed)");
                }
                rename.put(old, to);
            }
        });
        Optional<String> take = m.string("take", "a JSON pointer such as /data/items");
        take.flatMap(PartConfig.Shaping::pointerProblem).ifPresent(problem -> m.problem("take", problem));
        int maxKey = m.size(
                "max-key-bytes",
                PartConfig.Shaping.DEFAULT_MAX_KEY_BYTES,
                1,
                "a size such as 4KiB: the longest member name a shaped part may hold");
        return Optional.of(new PartConfig.Shaping(select, exclude, rename, take, maxKey));
    }

    private static List<String> paths(Mapping m, String key) {
        String expected = "a list of member paths such as [name, \"images[*].url\"]";
        List<String> paths = new ArrayList<>();
        m.list(key, expected).ifPresent(list -> {
            if (list.isEmpty()) {
                m.problem(key, "an empty list (expected: " + expected + ")");
            }
            for (int i = 0; i < list.size(); i++) {
                if (!(list.get(i) instanceof String path)) {
                    m.problem(key + "[" + i + "]", Mapping.describe(list.get(i)) + " (expected: a member path)");
                    continue;
                }
                Optional<String> problem = PartConfig.Shaping.pathProblem(path);
                if (problem.isPresent()) {
                    m.problem(key + "[" + i + "]", problem.get());
                } else {
                    paths.add(path);
                }
            }
        });
        return paths;
    }

    /** Whether select keeps the member at {@code segments}: it is selected, under a selected one, or on a selected path. */
    private static boolean kept(List<String> select, List<String> segments) {
        for (String path : select) {
            List<String> s = PartConfig.Shaping.segments(path);
            if (under(segments, s) || under(s, segments)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code path} is {@code prefix} or below it. */
    private static boolean under(List<String> path, List<String> prefix) {
        return path.size() >= prefix.size() && path.subList(0, prefix.size()).equals(prefix);
    }

    private Optional<String> upstream(Mapping m) {
        Optional<String> name = m.requiredString("upstream", "the name of a declared upstream");
        if (name.isPresent() && !upstreams.contains(name.get())) {
            String expected = upstreams.isEmpty()
                    ? "an upstream declared under upstreams"
                    : "one of " + String.join(", ", upstreams);
            m.problem("upstream", "'" + name.get() + "' is not a declared upstream (expected: " + expected + ")");
            return Optional.empty();
        }
        return name;
    }

    /** {@code path:} as a template; {@code {**}} only when the route path is a wildcard. */
    private Optional<PathTemplate> template(Mapping m, Optional<PathPattern> routePath, boolean part) {
        Optional<String> text = m.requiredString("path", TEMPLATE_EXPECTED);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        PathTemplate template;
        try {
            template = part ? PathTemplate.parsePart(text.get()) : PathTemplate.parse(text.get());
        } catch (IllegalArgumentException e) {
            m.problem("path", e.getMessage());
            return Optional.empty();
        }
        if (template.variableNames().contains(PathTemplate.REMAINDER)
                && routePath.isPresent()
                && !routePath.get().isWildcard()) {
            m.problem(
                    "path",
                    "'" + text.get() + "' uses {**} but the route path '" + routePath.get()
                            + "' has no wildcard (expected: a route path ending in /**, or no {**})");
            return Optional.empty();
        }
        return Optional.of(template);
    }

    List<FilterConfig> filters(List<?> items, String path) {
        List<FilterConfig> filters = new ArrayList<>();
        boolean compression = false;
        for (int i = 0; i < items.size(); i++) {
            String at = path + "[" + i + "]";
            Object item = items.get(i);
            if (!(item instanceof Map<?, ?> map) || map.size() != 1) {
                problems.add(new Problem(
                        at,
                        Mapping.describe(item)
                                + (item instanceof Map<?, ?> m ? " with " + m.size() + " keys" : "")
                                + " (expected: one filter per item, such as 'request-headers: {set: {x-a: b}}')"));
                continue;
            }
            String kind = String.valueOf(map.keySet().iterator().next());
            Object body = map.values().iterator().next();
            switch (kind) {
                case "request-headers" ->
                    headerRewrite(body, at + "." + kind)
                            .ifPresent(r -> filters.add(new FilterConfig.RequestHeaders(r.set(), r.remove())));
                case "response-headers" ->
                    headerRewrite(body, at + "." + kind)
                            .ifPresent(r -> filters.add(new FilterConfig.ResponseHeaders(r.set(), r.remove())));
                case "concurrency" -> concurrency(body, at + "." + kind).ifPresent(filters::add);
                case "max-body" -> maxBody(body, at + "." + kind).ifPresent(filters::add);
                case "jwt" -> auth.jwt(body, at + "." + kind).ifPresent(filters::add);
                case "api-key" -> auth.apiKey(body, at + "." + kind).ifPresent(filters::add);
                case "rate-limit" -> rateLimit(body, at + "." + kind).ifPresent(filters::add);
                case "ip-filter" -> ipFilter(body, at + "." + kind).ifPresent(filters::add);
                case "cors" -> cors.cors(body, at + "." + kind).ifPresent(filters::add);
                case "custom" -> custom.custom(body, at + "." + kind).ifPresent(filters::add);
                case "compression" -> {
                    if (compression) {
                        problems.add(
                                new Problem(at + "." + kind, "a second compression filter (expected: one per route)"));
                    } else {
                        CompressionBinder.compression(body, at + "." + kind, problems)
                                .ifPresent(filters::add);
                    }
                    compression = true;
                }
                default ->
                    problems.add(new Problem(
                            at + "." + kind,
                            "unknown filter (expected: one of request-headers, response-headers, concurrency,"
                                    + " max-body, jwt, api-key, rate-limit, ip-filter, cors, compression, custom)"));
            }
        }
        return filters;
    }

    private Optional<FilterConfig> concurrency(Object body, String path) {
        Optional<Mapping> section = Mapping.of(body, path, "a mapping with max, queue and queue-timeout", problems);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("max", "queue", "queue-timeout");
        int before = problems.size();
        if (!m.has("max")) {
            problems.add(new Problem(path + ".max", "missing (expected: the most requests in flight, 1 or more)"));
        }
        int max = m.integer("max", 1, 1, 1_000_000, "a whole number from 1 to 1000000");
        int queue = m.integer("queue", 0, 0, 1_000_000, "a whole number from 0 to 1000000");
        Duration queueTimeout = m.duration("queue-timeout", Duration.ofSeconds(1));
        return problems.size() == before
                ? Optional.of(new FilterConfig.Concurrency(max, queue, queueTimeout))
                : Optional.empty();
    }

    private Optional<FilterConfig> ipFilter(Object body, String path) {
        Optional<Mapping> section = Mapping.of(body, path, "a mapping with allow, deny and trusted-proxies", problems);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("allow", "deny", "trusted-proxies");
        int before = problems.size();
        List<String> allow = ranges(m, "allow", path);
        List<String> deny = ranges(m, "deny", path);
        List<String> trusted = ranges(m, "trusted-proxies", path);
        if (!m.has("allow") && !m.has("deny") && !m.has("trusted-proxies")) {
            problems.add(new Problem(
                    path,
                    "neither allow, deny nor trusted-proxies (expected: at least one list of addresses or CIDR"
                            + " ranges)"));
        }
        return problems.size() == before
                ? Optional.of(new FilterConfig.IpFilter(allow, deny, trusted))
                : Optional.empty();
    }

    /** A list of addresses or CIDR ranges, each checked by its path ({@code allow[2]}). */
    private List<String> ranges(Mapping m, String key, String path) {
        if (!m.has(key)) {
            return List.of();
        }
        Object value = m.raw(key);
        if (!(value instanceof List<?> list)) {
            problems.add(new Problem(
                    path + "." + key, "not a list (expected: a list of addresses or CIDR ranges such as 10.0.0.0/8)"));
            return List.of();
        }
        List<String> out = new java.util.ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            Object item = list.get(i);
            if (item instanceof String text
                    && dev.sluice.policy.Cidr.parse(text).isPresent()) {
                out.add(text.strip());
            } else {
                problems.add(new Problem(
                        path + "." + key + "[" + i + "]",
                        "'" + item
                                + "' (expected: an IP address or a CIDR range such as 10.0.0.0/8 or 2001:db8::/32)"));
            }
        }
        return out;
    }

    private static final String KEY_EXPECTED = "one of client-address, header:<name>, claim:<name>, api-key, route";

    private Optional<FilterConfig> rateLimit(Object body, String path) {
        Optional<Mapping> section =
                Mapping.of(body, path, "a mapping with key, permits, per, burst, store and on-store-failure", problems);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("key", "permits", "per", "burst", "store", "on-store-failure");
        int before = problems.size();
        if (!m.has("permits")) {
            problems.add(new Problem(path + ".permits", "missing (expected: the requests per 'per', 1 or more)"));
        }
        Optional<FilterConfig.RateKey> key = m.requiredString("key", KEY_EXPECTED)
                .flatMap(text -> {
                    Optional<FilterConfig.RateKey> parsed = rateKey(text);
                    if (parsed.isEmpty()) {
                        m.problem("key", "'" + text + "' (expected: " + KEY_EXPECTED + ")");
                    }
                    return parsed;
                });
        int permits = m.integer("permits", 1, 1, 1_000_000_000, "a whole number from 1 to 1000000000");
        Duration per = m.duration("per", Duration.ofSeconds(1));
        int burst = m.integer("burst", 0, 0, 1_000_000_000, "a whole number from 0 to 1000000000");
        String store = m.choice("store", "local", "local", "redis");
        boolean failOpen = "allow".equals(m.choice("on-store-failure", "allow", "allow", "deny"));
        if ("redis".equals(store) && !redis) {
            m.problem(
                    "store",
                    "'redis' but the configuration has no top-level redis: section (expected: local, or a"
                            + " 'redis: {url: \"redis://host:6379\"}' section)");
        }
        if (problems.size() != before || key.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new FilterConfig.RateLimit(
                key.get(),
                permits,
                per,
                burst,
                "redis".equals(store) ? FilterConfig.RateLimit.Store.REDIS : FilterConfig.RateLimit.Store.LOCAL,
                failOpen));
    }

    private static Optional<FilterConfig.RateKey> rateKey(String text) {
        return switch (text) {
            case "client-address" -> Optional.of(FilterConfig.RateKey.clientAddress());
            case "api-key" -> Optional.of(new FilterConfig.RateKey(FilterConfig.RateKey.Kind.API_KEY, ""));
            case "route" -> Optional.of(FilterConfig.RateKey.route());
            default -> {
                if (text.startsWith("header:") && Headers.isToken(text.substring(7))) {
                    yield Optional.of(FilterConfig.RateKey.header(text.substring(7)));
                }
                if (text.startsWith("claim:")
                        && text.length() > 6
                        && text.strip().equals(text)) {
                    yield Optional.of(new FilterConfig.RateKey(FilterConfig.RateKey.Kind.CLAIM, text.substring(6)));
                }
                yield Optional.empty();
            }
        };
    }

    private Optional<FilterConfig> maxBody(Object body, String path) {
        if ("none".equals(body)) {
            return Optional.of(new FilterConfig.MaxBody(ServerLimits.UNLIMITED));
        }
        OptionalLong bytes = body instanceof Integer || body instanceof Long
                ? OptionalLong.of(((Number) body).longValue())
                : body instanceof String text ? Quantities.size(text) : OptionalLong.empty();
        if (bytes.isEmpty() || bytes.getAsLong() < 0) {
            problems.add(new Problem(path, Mapping.describe(body) + " (expected: a size such as 10MiB, or none)"));
            return Optional.empty();
        }
        return Optional.of(new FilterConfig.MaxBody(bytes.getAsLong()));
    }

    private record Rewrite(Map<String, String> set, List<String> remove) {}

    private Optional<Rewrite> headerRewrite(Object body, String path) {
        Optional<Mapping> section = Mapping.of(body, path, "a mapping with set and remove", problems);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("set", "remove");
        int before = problems.size();
        Map<String, String> set = m.mapping("set", "a mapping of header name to value")
                .map(Headers::values)
                .orElse(Map.of());
        List<String> remove = m.list("remove", "a list of header names")
                .map(l -> Headers.names(l, m.child("remove"), problems))
                .orElse(List.of());
        return problems.size() == before ? Optional.of(new Rewrite(set, remove)) : Optional.empty();
    }
}
