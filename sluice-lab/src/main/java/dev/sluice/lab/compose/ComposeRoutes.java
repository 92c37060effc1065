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

    private ComposeRoutes() {}

    /** The route of {@code kind}, as a YAML list item indented for {@code routes:}. */
    public static String route(String kind) {
        String parts = switch (kind) {
            case "plain" -> """
                          product: { upstream: sizes, path: "/doc/{size}" }
                          twin:    { upstream: sizes, path: "/doc/{size}" }
                    """;
            case "shaped" -> """
                          product: { upstream: sizes, path: "/doc/{size}", select: [id, name, price, "items[*].sku"] }
                          twin:    { upstream: sizes, path: "/doc/{size}", select: [id, name, price, "items[*].sku"] }
                    """;
            case "chained" -> """
                          product: { upstream: sizes, path: "/doc/{size}" }
                          reviews: { upstream: sizes, after: product, path: "/reviews?ids={product:/reviewIds}" }
                    """;
            case "collection" -> """
                          product: { upstream: sizes, path: "/doc/{size}" }
                          related: { upstream: sizes, each: "product:/relatedIds", path: "/products/{each}", max: 20, concurrency: 5 }
                    """;
            default -> throw new IllegalArgumentException("kind: '" + kind + "'");
        };
        return """
          - id: compose-%s
            match: { path: "/compose/%s/{size}", methods: [GET] }
            compose:
              timeout: 60s
              parts:
        %s""".formatted(kind, kind, parts);
    }
}
