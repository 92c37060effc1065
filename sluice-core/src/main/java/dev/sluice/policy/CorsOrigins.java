package dev.sluice.policy;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The origins a {@code cors} filter allows: {@code *} (any), exact origins compared by scheme, host
 * and port ({@code https://shop.example}, {@code http://localhost:3000}), and patterns whose host
 * begins with {@code *.} ({@code https://*.example.com}: any host of one or more labels below {@code
 * example.com}, same scheme and port, never {@code example.com} itself). Schemes and hosts are
 * compared in lower case, and a scheme's default port is the same as none ({@code https://a.example:443}
 * is {@code https://a.example}), so a configured origin matches what a browser sends whatever its
 * spelling. Anything that is not an origin (a path, a user, {@code null}) matches only {@code *}.
 */
public final class CorsOrigins {

    // scheme "://" host [":" port]; host: DNS labels, an IPv4 address or a bracketed IPv6 address
    private static final Pattern ORIGIN =
            Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*)://((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*"
                    + "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?|\\[[0-9A-Fa-f:.]+\\])(?::(\\d{1,5}))?");
    private static final Pattern LABELS =
            Pattern.compile("(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?");

    private final boolean any;
    private final Set<String> exact;
    private final List<Wildcard> patterns;

    /** A pattern {@code scheme://*.suffix[:port]}, kept as its scheme, {@code .suffix} and port. */
    private record Wildcard(String scheme, String dotSuffix, String port) {}

    private CorsOrigins(boolean any, Set<String> exact, List<Wildcard> patterns) {
        this.any = any;
        this.exact = exact;
        this.patterns = patterns;
    }

    /** The origins of a filter's {@code allowed-origins}, each already {@link #normalise}d. */
    public static CorsOrigins of(List<String> allowed) {
        Set<String> exact = new HashSet<>();
        List<Wildcard> patterns = new ArrayList<>();
        boolean any = false;
        for (String origin : allowed) {
            if (origin.equals("*")) {
                any = true;
            } else if (origin.contains("://*.")) {
                int at = origin.indexOf("://*.");
                String rest = origin.substring(at + 4); // ".suffix[:port]"
                int colon = rest.indexOf(':');
                patterns.add(new Wildcard(
                        origin.substring(0, at),
                        colon < 0 ? rest : rest.substring(0, colon),
                        colon < 0 ? "" : rest.substring(colon)));
            } else {
                exact.add(origin);
            }
        }
        return new CorsOrigins(any, Set.copyOf(exact), List.copyOf(patterns));
    }

    /** Whether every origin is allowed ({@code *}). */
    public boolean any() {
        return any;
    }

    /** Whether a request's {@code Origin} value is allowed. */
    public boolean allows(String origin) {
        if (any) {
            return true;
        }
        Optional<String> normal = normaliseOrigin(origin);
        if (normal.isEmpty()) {
            return false;
        }
        String o = normal.get();
        if (exact.contains(o)) {
            return true;
        }
        for (Wildcard w : patterns) {
            if (o.startsWith(w.scheme() + "://") && o.endsWith(w.dotSuffix() + w.port())) {
                String label = o.substring(
                        w.scheme().length() + 3,
                        o.length() - w.dotSuffix().length() - w.port().length());
                if (!label.isEmpty() && LABELS.matcher(label).matches()) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A configured origin in its compared form, or empty with nothing when it is not one: {@code *},
     * {@code scheme://host[:port]}, or {@code scheme://*.suffix[:port]} where the suffix has at
     * least two labels ({@code *.com} is refused).
     */
    public static Optional<String> normalise(String configured) {
        requireNonNull(configured, "configured");
        if (configured.equals("*")) {
            return Optional.of("*");
        }
        int wildcard = configured.indexOf("://*.");
        if (wildcard < 0) {
            return normaliseOrigin(configured);
        }
        Optional<String> rest =
                normaliseOrigin(configured.substring(0, wildcard + 3) + configured.substring(wildcard + 5));
        if (rest.isEmpty()) {
            return Optional.empty();
        }
        String r = rest.get();
        int host = r.indexOf("://") + 3;
        int colon = r.indexOf(':', host);
        String name = colon < 0 ? r.substring(host) : r.substring(host, colon);
        if (name.indexOf('.') < 0
                || name.startsWith("[")
                || name.chars().allMatch(c -> c == '.' || Character.isDigit(c))) {
            return Optional.empty(); // *.com, an IP literal: no
        }
        return Optional.of(r.substring(0, host) + "*." + r.substring(host));
    }

    /** {@code scheme://host[:port]} in lower case without its scheme's default port, or empty. */
    static Optional<String> normaliseOrigin(String origin) {
        if (origin == null) {
            return Optional.empty();
        }
        Matcher m = ORIGIN.matcher(origin);
        if (!m.matches()) {
            return Optional.empty();
        }
        String scheme = m.group(1).toLowerCase(Locale.ROOT);
        String host = m.group(2).toLowerCase(Locale.ROOT);
        String port = m.group(3);
        if (port != null) {
            int p = Integer.parseInt(port);
            if (p < 1 || p > 65535) {
                return Optional.empty();
            }
            port = Integer.toString(p);
            if ((scheme.equals("http") && p == 80) || (scheme.equals("https") && p == 443)) {
                port = null;
            }
        }
        return Optional.of(scheme + "://" + host + (port == null ? "" : ":" + port));
    }
}
