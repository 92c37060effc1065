package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.util.List;

/** One route: what it matches, where it goes, and the filters on the way. */
public record RouteConfig(String id, RouteMatch match, Target target, List<FilterConfig> filters) {
    public RouteConfig {
        requireNonNull(id, "id");
        requireNonNull(match, "match");
        requireNonNull(target, "target");
        filters = List.copyOf(filters);
    }
}
