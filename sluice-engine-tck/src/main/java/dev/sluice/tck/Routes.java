package dev.sluice.tck;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.ComposeTarget;
import dev.sluice.config.ComposeTarget.Fanout;
import dev.sluice.config.ComposeTarget.OnError;
import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.config.FilterConfig;
import dev.sluice.config.Pace;
import dev.sluice.config.PartConfig;
import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteMatch;
import dev.sluice.config.UpstreamConfig;
import dev.sluice.routing.PathPattern;
import dev.sluice.routing.PathTemplate;
import dev.sluice.routing.ValueMatch;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Small builders for the configuration records, so each test declares its routes in a line or two:
 *
 * <pre>
 *   gateway.route("r", on("/products/{id}").methods("GET"), proxy("app").path("/inspect/{id}"))
 *   gateway.route("c", on("/page"), compose().order(Order.DECLARED).part("a", "app", "/json/10"))
 * </pre>
 */
public final class Routes {

    private Routes() {}

    public static MatchSpec on(String pathPattern) {
        return new MatchSpec(pathPattern);
    }

    public static ProxySpec proxy(String upstream) {
        return new ProxySpec(upstream);
    }

    public static ComposeSpec compose() {
        return new ComposeSpec();
    }

    public static UpstreamSpec upstream(String name, URI url) {
        return new UpstreamSpec(name, url);
    }

    public static FilterConfig.RequestHeaders requestHeaders(Map<String, String> set, List<String> remove) {
        return new FilterConfig.RequestHeaders(set, remove);
    }

    public static FilterConfig.ResponseHeaders responseHeaders(Map<String, String> set, List<String> remove) {
        return new FilterConfig.ResponseHeaders(set, remove);
    }

    /** A {@link RouteMatch} under construction. */
    public static final class MatchSpec {
        private final String path;
        private Set<String> methods = Set.of();
        private Optional<String> host = Optional.empty();
        private final Map<String, ValueMatch> headers = new LinkedHashMap<>();
        private final Map<String, ValueMatch> query = new LinkedHashMap<>();
        private final Map<String, ValueMatch> cookies = new LinkedHashMap<>();

        private MatchSpec(String path) {
            this.path = requireNonNull(path, "path");
        }

        public MatchSpec methods(String... methods) {
            this.methods = Set.of(methods);
            return this;
        }

        public MatchSpec host(String host) {
            this.host = Optional.of(host);
            return this;
        }

        /** @param value the required value, or {@code *} for presence only */
        public MatchSpec header(String lowerCaseName, String value) {
            return header(lowerCaseName, value.equals("*") ? ValueMatch.Present.INSTANCE : new ValueMatch.Exact(value));
        }

        public MatchSpec header(String lowerCaseName, ValueMatch requirement) {
            headers.put(lowerCaseName, requirement);
            return this;
        }

        public MatchSpec query(String name, ValueMatch requirement) {
            query.put(name, requirement);
            return this;
        }

        public MatchSpec cookie(String name, ValueMatch requirement) {
            cookies.put(name, requirement);
            return this;
        }

        public RouteMatch build() {
            return new RouteMatch(PathPattern.parse(path), methods, host, headers, query, cookies);
        }
    }

    /** A {@link ProxyTarget} under construction. */
    public static final class ProxySpec {
        private final String upstream;
        private Optional<String> stripPrefix = Optional.empty();
        private Optional<PathTemplate> path = Optional.empty();
        private Optional<Duration> timeout = Optional.empty();
        private Optional<dev.sluice.routing.PathRewrite> rewrite = Optional.empty();
        private boolean preserveHost;
        private Optional<dev.sluice.config.Backends> backends = Optional.empty();
        private Optional<dev.sluice.config.MirrorConfig> mirror = Optional.empty();
        private Optional<dev.sluice.config.TranscodeConfig> transcode = Optional.empty();

        private ProxySpec(String upstream) {
            this.upstream = requireNonNull(upstream, "upstream");
        }

        public ProxySpec stripPrefix(String prefix) {
            this.stripPrefix = Optional.of(prefix);
            return this;
        }

        public ProxySpec path(String template) {
            this.path = Optional.of(PathTemplate.parse(template));
            return this;
        }

        public ProxySpec timeout(Duration timeout) {
            this.timeout = Optional.of(timeout);
            return this;
        }

        public ProxySpec rewrite(String regex, String replacement) {
            this.rewrite = Optional.of(dev.sluice.routing.PathRewrite.of(regex, replacement));
            return this;
        }

        public ProxySpec preserveHost() {
            this.preserveHost = true;
            return this;
        }

        /** Weighted sides; the first must be this spec's upstream. */
        public ProxySpec backends(dev.sluice.config.Backends backends) {
            this.backends = Optional.of(backends);
            return this;
        }

        public ProxySpec mirror(String upstream, double percent, int maxInFlight) {
            this.mirror = Optional.of(new dev.sluice.config.MirrorConfig(upstream, percent, maxInFlight));
            return this;
        }

        public ProxySpec mirror(String upstream, double percent, int maxInFlight, int maxBody) {
            this.mirror = Optional.of(new dev.sluice.config.MirrorConfig(upstream, percent, maxInFlight, maxBody));
            return this;
        }

        /** {@code grpc-transcode:} JSON clients call the upstream's gRPC methods. */
        public ProxySpec transcode(dev.sluice.config.TranscodeConfig transcode) {
            this.transcode = Optional.of(transcode);
            return this;
        }

        public ProxyTarget build() {
            return new ProxyTarget(
                    upstream, stripPrefix, path, timeout, rewrite, preserveHost, backends, mirror, transcode);
        }
    }

    /** A {@link ComposeTarget} under construction; the defaults are the configuration's. */
    public static final class ComposeSpec {
        private Fanout fanout = Fanout.PARALLEL;
        private Order order = Order.ARRIVAL;
        private OnError onError = OnError.PARTIAL;
        private Duration timeout = Duration.ofSeconds(10);
        private boolean validateJson;
        private List<ComposeTarget.Delivery> delivery = List.of(ComposeTarget.Delivery.JSON);
        private final List<PartConfig> parts = new ArrayList<>();
        private Optional<String> statusFrom = Optional.empty();
        private List<String> require = List.of();

        private ComposeSpec() {}

        /** {@code status-from:} the response's status follows this part when it fails. */
        public ComposeSpec statusFrom(String part) {
            this.statusFrom = Optional.of(part);
            return this;
        }

        /** {@code require:} all or nothing for these parts. */
        public ComposeSpec require(String... parts) {
            this.require = List.of(parts);
            return this;
        }

        public ComposeSpec fanout(Fanout fanout) {
            this.fanout = fanout;
            return this;
        }

        public ComposeSpec order(Order order) {
            this.order = order;
            return this;
        }

        public ComposeSpec onError(OnError onError) {
            this.onError = onError;
            return this;
        }

        public ComposeSpec timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /** The formats the route serves ({@code delivery:}); several are negotiated by Accept. */
        public ComposeSpec delivery(ComposeTarget.Delivery... formats) {
            this.delivery = List.of(formats);
            return this;
        }

        public ComposeSpec validateJson() {
            this.validateJson = true;
            return this;
        }

        public ComposeSpec part(String name, String upstream, String path) {
            parts.add(new PartConfig(name, upstream, PathTemplate.parse(path), false, Optional.empty()));
            return this;
        }

        public ComposeSpec part(String name, String upstream, String path, Duration timeout) {
            parts.add(new PartConfig(name, upstream, PathTemplate.parse(path), false, Optional.of(timeout)));
            return this;
        }

        /** A part whose JSON is shaped as it streams. */
        public ComposeSpec part(String name, String upstream, String path, PartConfig.Shaping shaping) {
            parts.add(new PartConfig(
                    name, upstream, PathTemplate.parse(path), false, Optional.empty(), Optional.of(shaping)));
            return this;
        }

        /** A part whose answers the part cache may keep ({@code cache:}). */
        public ComposeSpec cachedPart(String name, String upstream, String path, dev.sluice.config.PartCaching cache) {
            parts.add(new PartConfig(
                    name,
                    upstream,
                    PathTemplate.parse(path),
                    false,
                    Optional.empty(),
                    Optional.empty(),
                    Optional.of(cache)));
            return this;
        }

        /**
         * A chained part: its path may refer to values in the part named by {@code after} ({@code
         * {product:/reviewIds}}); {@code after} may be null when a reference names it.
         */
        public ComposeSpec chainedPart(String name, String upstream, String path, String after) {
            parts.add(new PartConfig(
                    name,
                    upstream,
                    PathTemplate.parsePart(path),
                    false,
                    Optional.empty(),
                    Optional.empty(),
                    Optional.ofNullable(after),
                    PartConfig.DEFAULT_MAX_VALUE,
                    Optional.empty()));
            return this;
        }

        /** A collection part: a call to {@code path} (with {@code {each}}) per element at {@code each}. */
        public ComposeSpec collectionPart(
                String name, String upstream, String path, String each, int max, int concurrency, boolean arrival) {
            parts.add(new PartConfig(
                    name,
                    upstream,
                    PathTemplate.parsePart(path),
                    false,
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    PartConfig.DEFAULT_MAX_VALUE,
                    Optional.of(new PartConfig.Collection(each, max, concurrency, arrival))));
            return this;
        }

        /** A part as configured ({@code grpc-transcode} parts, say). */
        public ComposeSpec part(PartConfig part) {
            parts.add(part);
            return this;
        }

        public ComposeSpec optionalPart(String name, String upstream, String path) {
            parts.add(new PartConfig(name, upstream, PathTemplate.parse(path), true, Optional.empty()));
            return this;
        }

        public ComposeTarget build() {
            return new ComposeTarget(
                    fanout,
                    order,
                    onError,
                    timeout,
                    validateJson,
                    parts,
                    delivery,
                    new dev.sluice.config.Requirements(statusFrom, require));
        }
    }

    /** An {@link UpstreamConfig} under construction, from {@link UpstreamConfig#of}'s defaults. */
    public static final class UpstreamSpec {
        private UpstreamConfig config;

        private UpstreamSpec(String name, URI url) {
            this.config = UpstreamConfig.of(name, url);
        }

        /**
         * The connect timeout (the product's default is 1 s; an h2 upstream waits twice that for its
         * session): tests against a live h2 service on a loaded machine give it room.
         */
        public UpstreamSpec connectTimeout(Duration connectTimeout) {
            UpstreamConfig c = config;
            config = new UpstreamConfig(
                    c.name(),
                    c.url(),
                    c.maxConnections(),
                    connectTimeout,
                    c.readTimeout(),
                    c.acquireTimeout(),
                    c.maxPending(),
                    c.idleTimeout(),
                    c.pace(),
                    c.resilience());
            return this;
        }

        public UpstreamSpec readTimeout(Duration readTimeout) {
            UpstreamConfig c = config;
            config = new UpstreamConfig(
                    c.name(),
                    c.url(),
                    c.maxConnections(),
                    c.connectTimeout(),
                    readTimeout,
                    c.acquireTimeout(),
                    c.maxPending(),
                    c.idleTimeout(),
                    c.pace(),
                    c.resilience());
            return this;
        }

        /** Pool limits: connections, the longest wait for one, and how many may wait. */
        public UpstreamSpec pool(int maxConnections, Duration acquireTimeout, int maxPending) {
            UpstreamConfig c = config;
            config = new UpstreamConfig(
                    c.name(),
                    c.url(),
                    maxConnections,
                    c.connectTimeout(),
                    c.readTimeout(),
                    acquireTimeout,
                    maxPending,
                    c.idleTimeout(),
                    c.pace(),
                    c.resilience());
            return this;
        }

        /** At most {@code pace.permits()} calls started per {@code pace.per()}. */
        public UpstreamSpec pace(Pace pace) {
            UpstreamConfig c = config;
            config = new UpstreamConfig(
                    c.name(),
                    c.url(),
                    c.maxConnections(),
                    c.connectTimeout(),
                    c.readTimeout(),
                    c.acquireTimeout(),
                    c.maxPending(),
                    c.idleTimeout(),
                    Optional.of(pace),
                    c.resilience());
            return this;
        }

        /** How its https endpoints are reached. */
        public UpstreamSpec tls(dev.sluice.config.UpstreamTlsConfig tls) {
            config = config.withTls(tls);
            return this;
        }

        /** Connections older than {@code lifetime} closed instead of reused. */
        public UpstreamSpec maxLifetime(Duration lifetime) {
            config = config.withMaxLifetime(lifetime);
            return this;
        }

        /** Its endpoints, balancing, checks, retries and breakers ({@code url} becomes the first endpoint). */
        public UpstreamSpec resilience(dev.sluice.config.UpstreamResilience resilience) {
            config = config.withResilience(resilience);
            return this;
        }

        /** What its connections speak ({@code h2c}, {@code h2}), at most 100 streams per connection. */
        public UpstreamSpec protocol(dev.sluice.config.UpstreamProtocol protocol) {
            config = config.withProtocol(protocol, config.maxStreamsPerConnection());
            return this;
        }

        public UpstreamConfig build() {
            return config;
        }
    }
}
