package dev.sluice.lab.compose;

import java.util.List;

/**
 * The compose scenario's gateway routes (YAML list items), one per kind, all on the sizes upstream
 * ({@code sizes}): {@code /compose/plain/{size}} (two parts of {@code /doc/{size}}), {@code shaped} (the
 * same with {@link TreeCompose#SELECT}), {@code chained} ({@code reviews} after {@code product}) and
 * {@code collection} ({@code related}, one call per {@code product:/relatedIds}).
 */
public final class ComposeRoutes {

    public static final List<String> KINDS = List.of("plain", "shaped", "chained", "collection");

    private static final String SELECT = "select: [id, name, price, \"items[*].sku\"]";

    /** Where the chain's parts are fetched through the gateway as a plain proxy: {@code /parts/doc/N}. */
    public static final String PARTS_PREFIX = "/parts";

    private ComposeRoutes() {}

    /**
     * A plain (unchained, unshaped) proxy of the sizes upstream under {@link #PARTS_PREFIX}: the chain's
     * parts fetched through the gateway, so that a chain's latency is compared with the same bytes
     * relayed the same way, one part at a time.
     */
    public static String partsRoute() {
        return "  - id: compose-parts\n"
                + "    match: { path: \"" + PARTS_PREFIX + "/**\", methods: [GET] }\n"
                + "    proxy: { upstream: sizes, strip-prefix: " + PARTS_PREFIX + " }\n";
    }

    /** The route of {@code kind}, as a YAML list item indented for {@code routes:}. */
    public static String route(String kind) {
        List<String> parts = switch (kind) {
            case "plain" ->
                List.of(
                        "product: { upstream: sizes, path: \"/doc/{size}\" }",
                        "twin: { upstream: sizes, path: \"/doc/{size}\" }");
            case "shaped" ->
                List.of(
                        "product: { upstream: sizes, path: \"/doc/{size}\", " + SELECT + " }",
                        "twin: { upstream: sizes, path: \"/doc/{size}\", " + SELECT + " }");
            case "chained" ->
                List.of(
                        "product: { upstream: sizes, path: \"/doc/{size}\" }",
                        "reviews: { upstream: sizes, after: product, path: \"/reviews?ids={product:/reviewIds}\" }");
            case "collection" ->
                List.of(
                        "product: { upstream: sizes, path: \"/doc/{size}\" }",
                        "related: { upstream: sizes, each: \"product:/relatedIds\", path: \"/products/{each}\","
                                + " max: 20, concurrency: 5 }");
            default -> throw new IllegalArgumentException("kind: '" + kind + "'");
        };
        StringBuilder sb = new StringBuilder()
                .append("  - id: compose-")
                .append(kind)
                .append('\n')
                .append("    match: { path: \"/compose/")
                .append(kind)
                .append("/{size}\", methods: [GET] }\n")
                .append("    compose:\n")
                .append("      timeout: 60s\n")
                .append("      parts:\n");
        parts.forEach(p -> sb.append("        ").append(p).append('\n'));
        return sb.toString();
    }
}
