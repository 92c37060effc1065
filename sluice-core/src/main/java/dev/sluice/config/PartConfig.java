package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import dev.sluice.routing.PathTemplate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One part of a composition: a GET to {@code upstream} at {@code path} (expanded with the route's
 * path variables and the request's query parameters).
 *
 * @param optional an optional part that fails is {@code null} in the response even when {@code
 *     on-error: fail}
 * @param timeout optional bound on this part alone (the route's timeout bounds all parts)
 * @param shaping how the part's JSON is filtered as it streams, when it is
 * @param after the earlier part this one is chained to: it starts once the values its {@code path}
 *     refers to ({@code {product:/reviewIds}}, {@link PathTemplate#references()}) have streamed past
 *     in that part, or once that part's body has ended when it refers to none
 * @param maxValue the longest value a reference takes, in bytes
 * @param collection when the part is a collection: a call per element of an array found in an
 *     earlier part, relayed as one JSON array
 * @param cache whether and how its answers are kept in the part cache ({@code cache:})
 * @param grpc the part calls a gRPC method of its (h2/h2c) upstream ({@code grpc-transcode:}): its
 *     expanded {@code path} is matched as a {@code GET} against the methods' bindings, and the answer
 *     is transcoded to JSON by {@code dev.sluice.transcode.TranscodedPart}
 */
public record PartConfig(
        String name,
        String upstream,
        PathTemplate path,
        boolean optional,
        Optional<Duration> timeout,
        Optional<Shaping> shaping,
        Optional<String> after,
        int maxValue,
        Optional<Collection> collection,
        Optional<PartCaching> cache,
        Optional<TranscodeConfig> grpc) {

    /** {@code max-value}'s default. */
    public static final int DEFAULT_MAX_VALUE = 1024;

    public PartConfig {
        requireNonNull(name, "name");
        requireNonNull(upstream, "upstream");
        requireNonNull(path, "path");
        requireNonNull(timeout, "timeout");
        requireNonNull(shaping, "shaping");
        requireNonNull(after, "after");
        requireNonNull(collection, "collection");
        requireNonNull(cache, "cache");
        requireNonNull(grpc, "grpc");
        if (after.isEmpty() && !path.references().isEmpty()) { // implied by the first reference
            after = Optional.of(referencedPart(path.references().iterator().next()));
        }
        if (after.isEmpty()
                && collection.isPresent()
                && collection.get().queryName().isEmpty()) {
            after = Optional.of(referencedPart(collection.get().each()));
        }
        if (maxValue < 1) {
            throw new IllegalArgumentException("maxValue: " + maxValue + " (expected: > 0)");
        }
    }

    /** A part that starts with the composition. */
    public PartConfig(
            String name,
            String upstream,
            PathTemplate path,
            boolean optional,
            Optional<Duration> timeout,
            Optional<Shaping> shaping) {
        this(name, upstream, path, optional, timeout, shaping, Optional.empty(), DEFAULT_MAX_VALUE, Optional.empty());
    }

    /** A part that starts with the composition, cached as {@code cache} says. */
    public PartConfig(
            String name,
            String upstream,
            PathTemplate path,
            boolean optional,
            Optional<Duration> timeout,
            Optional<Shaping> shaping,
            Optional<PartCaching> cache) {
        this(
                name,
                upstream,
                path,
                optional,
                timeout,
                shaping,
                Optional.empty(),
                DEFAULT_MAX_VALUE,
                Optional.empty(),
                cache);
    }

    /** A part that is a plain {@code GET} of JSON (no {@code grpc-transcode}). */
    public PartConfig(
            String name,
            String upstream,
            PathTemplate path,
            boolean optional,
            Optional<Duration> timeout,
            Optional<Shaping> shaping,
            Optional<String> after,
            int maxValue,
            Optional<Collection> collection,
            Optional<PartCaching> cache) {
        this(name, upstream, path, optional, timeout, shaping, after, maxValue, collection, cache, Optional.empty());
    }

    /** A part that is never cached. */
    public PartConfig(
            String name,
            String upstream,
            PathTemplate path,
            boolean optional,
            Optional<Duration> timeout,
            Optional<Shaping> shaping,
            Optional<String> after,
            int maxValue,
            Optional<Collection> collection) {
        this(name, upstream, path, optional, timeout, shaping, after, maxValue, collection, Optional.empty());
    }

    /**
     * A collection part's fan-out: a call to the part's {@code path}, its {@code {each}} the element, for
     * each scalar of the array at {@code each} ({@code product:/relatedIds}).
     *
     * @param each the earlier part and the JSON pointer of the array
     * @param max the most elements fetched; more are left out and counted in {@code _meta}
     * @param concurrency the most element calls in flight at once
     * @param arrival elements relayed as they are ready rather than in the array's order
     */
    public record Collection(String each, int max, int concurrency, boolean arrival) {
        /** The placeholder an element's value takes in the part's path. */
        public static final String EACH = "each";

        /** The query parameter whose values the elements are, when {@code each} names one. */
        public Optional<String> queryName() {
            return each.startsWith(QUERY) ? Optional.of(each.substring(QUERY.length())) : Optional.empty();
        }

        public static final int DEFAULT_MAX = 20;
        public static final int DEFAULT_CONCURRENCY = 5;

        /** The prefix of an {@code each} naming a repeated query parameter of the request ({@code query:ids}). */
        public static final String QUERY = "query:";

        public Collection {
            requireNonNull(each, "each");
            if (each.indexOf(PathTemplate.REFERENCE) <= 0) {
                throw new IllegalArgumentException("each: '" + each + "' (expected: part:/json/pointer)");
            }
            if (each.startsWith(QUERY) && each.length() == QUERY.length()) {
                throw new IllegalArgumentException("each: '" + each + "' (expected: query:<parameter name>)");
            }
            if (max < 1 || concurrency < 1) {
                throw new IllegalArgumentException(
                        "max: " + max + ", concurrency: " + concurrency + " (expected: both > 0)");
            }
        }
    }

    /** The part a reference ({@code product:/reviewIds}) names. */
    public static String referencedPart(String reference) {
        return reference.substring(0, reference.indexOf(PathTemplate.REFERENCE));
    }

    /** The JSON pointer of a reference ({@code /reviewIds}). */
    public static String referencedPointer(String reference) {
        return reference.substring(reference.indexOf(PathTemplate.REFERENCE) + 1);
    }

    /** A part relayed as its upstream sends it. */
    public PartConfig(String name, String upstream, PathTemplate path, boolean optional, Optional<Duration> timeout) {
        this(name, upstream, path, optional, timeout, Optional.empty());
    }

    /**
     * A part's shaping, applied by {@code dev.sluice.compose.JsonShaper} as its bytes pass: first
     * {@code take}, then {@code select} or {@code exclude}, then {@code rename}.
     *
     * @param select member paths kept ({@code name}, {@code images[*].url}); empty: all are kept
     * @param exclude member paths dropped; never given with {@code select}
     * @param rename member path to its new name ({@code price: cost}, {@code offer.price: cost})
     * @param take a JSON pointer (RFC 6901): only the value there is relayed
     * @param maxKeyBytes the longest member name held while it is decided on; longer fails the part
     */
    public record Shaping(
            List<String> select,
            List<String> exclude,
            Map<String, String> rename,
            Optional<String> take,
            int maxKeyBytes) {
        public static final int DEFAULT_MAX_KEY_BYTES = 4096;

        public Shaping {
            select = List.copyOf(select);
            exclude = List.copyOf(exclude);
            rename = Map.copyOf(rename);
            requireNonNull(take, "take");
            if (maxKeyBytes < 1) {
                throw new IllegalArgumentException("maxKeyBytes: " + maxKeyBytes + " (expected: > 0)");
            }
        }

        /** Paths such as {@code images[*].url} as member names: arrays are passed through, so {@code [*]} is dropped. */
        public static List<String> segments(String path) {
            String stripped = path.replace("[*]", "");
            return List.of(stripped.split("\\.", -1));
        }

        /** Why {@code path} is not a member path, or empty when it is one. */
        public static Optional<String> pathProblem(String path) {
            if (path.isEmpty()) {
                return Optional.of("an empty path (expected: a member path such as images[*].url)");
            }
            String stripped = path.replace("[*]", "");
            if (stripped.indexOf('[') >= 0 || stripped.indexOf(']') >= 0) {
                return Optional.of("'" + path + "' (expected: names joined by '.', with [*] after an array's name)");
            }
            for (String s : segments(path)) {
                if (s.isEmpty()) {
                    return Optional.of("'" + path + "' has an empty name (expected: names joined by '.')");
                }
            }
            return Optional.empty();
        }

        /** Why {@code pointer} is not a JSON pointer (RFC 6901), or empty when it is one. */
        public static Optional<String> pointerProblem(String pointer) {
            if (!pointer.isEmpty() && pointer.charAt(0) != '/') {
                return Optional.of(
                        "'" + pointer + "' (expected: a JSON pointer such as /data/items, or '' for the whole)");
            }
            for (int i = 0; i < pointer.length(); i++) {
                if (pointer.charAt(i) == '~'
                        && (i + 1 == pointer.length()
                                || (pointer.charAt(i + 1) != '0' && pointer.charAt(i + 1) != '1'))) {
                    return Optional.of(
                            "'" + pointer + "' has a '~' not followed by 0 or 1 (expected: ~0 for ~, ~1 for /)");
                }
            }
            return Optional.empty();
        }

        /** The pointer's reference tokens, unescaped. */
        public static List<String> tokens(String pointer) {
            if (pointer.isEmpty()) {
                return List.of();
            }
            String[] raw = pointer.substring(1).split("/", -1);
            java.util.ArrayList<String> out = new java.util.ArrayList<>(raw.length);
            for (String t : raw) {
                out.add(t.replace("~1", "/").replace("~0", "~"));
            }
            return List.copyOf(out);
        }
    }
}
