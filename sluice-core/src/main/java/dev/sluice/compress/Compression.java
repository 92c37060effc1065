package dev.sluice.compress;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.FilterConfig;
import dev.sluice.config.RouteConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A route's {@code compression} filter, compiled once: the one place that decides whether a
 * response is compressed, and how. An engine asks twice and carries out the answer:
 *
 * <pre>
 *   request matched ──► {@link #wanted}(version, method, Accept-Encoding) ─► a {@link Coding} or null   (no allocation)
 *   head leaving    ──► {@link #begin}(wanted, status, head) ── true ──► {@link #encoder}(wanted) for the body
 *                                                         └─ false ─► the body as it is
 * </pre>
 *
 * The coding is the one of the route's {@code codings} the client's {@code Accept-Encoding} takes
 * with the highest q-value, the route's order breaking ties ({@link AcceptEncoding#choose}).
 *
 * A response is <em>eligible</em> when its status has a body that may be transformed (2xx to 5xx,
 * not 204, 206 or 304), it has no {@code Content-Encoding} of its own (an upstream's gzip passes
 * through untouched), no {@code Content-Range}, no {@code Cache-Control: no-transform}, a listed
 * media type, and a {@code Content-Length} of at least {@code min-size} when it has one. An eligible
 * response always gets {@code Vary: Accept-Encoding}; it is compressed when the request wanted it:
 * {@code Content-Encoding} the coding, no {@code Content-Length} (the body streams), a weak {@code ETag}
 * (its bytes are no longer the upstream's, as nginx does).
 */
public final class Compression {

    /** No compression: {@link #isOn()} is false, and engines do nothing at all per request. */
    public static final Compression NONE = new Compression(null);

    private final String[] types; // exact media types
    private final String[] prefixes; // "text/" for text/*
    private final long minSize;
    private final int level;
    private final Coding[] codings;
    private final int zstdLevel;

    private Compression(FilterConfig.Compression config) {
        List<String> exact = new ArrayList<>();
        List<String> ranges = new ArrayList<>();
        if (config != null) {
            for (String type : config.types()) {
                if (type.endsWith("/*")) {
                    ranges.add(type.substring(0, type.length() - 1));
                } else {
                    exact.add(type);
                }
            }
        }
        this.types = exact.toArray(String[]::new);
        this.prefixes = ranges.toArray(String[]::new);
        this.minSize = config == null ? Long.MAX_VALUE : config.minSize();
        this.level = config == null ? 0 : config.level();
        this.codings = config == null
                ? new Coding[0]
                : config.codings().stream().map(c -> Coding.of(c).orElseThrow()).toArray(Coding[]::new);
        this.zstdLevel = config == null ? 0 : config.zstdLevel();
        if (java.util.Arrays.asList(codings).contains(Coding.ZSTD)) {
            // unpack and load libzstd now, at start or reload, not in a first response's write (a
            // reactive engine would do that file work on its event loop)
            ZstdEncoder.unavailable().ifPresent(why -> {
                throw new IllegalStateException("zstd cannot be loaded here: " + why);
            });
        }
    }

    /** The route's compression, {@link #NONE} when it has no {@code compression} filter. */
    public static Compression of(RouteConfig route) {
        for (FilterConfig filter : route.filters()) {
            if (filter instanceof FilterConfig.Compression c) {
                return of(c);
            }
        }
        return NONE;
    }

    public static Compression of(FilterConfig.Compression config) {
        return new Compression(requireNonNull(config, "config"));
    }

    /** Whether the route compresses at all. */
    public boolean isOn() {
        return level > 0;
    }

    /** The Deflater level for a {@link GzipEncoder}. */
    public int level() {
        return level;
    }

    /** A new encoder for one body in {@code coding} (one {@link #begin} said yes to). */
    public ResponseEncoder encoder(Coding coding) {
        return switch (coding) {
            case GZIP -> new GzipEncoder(level);
            case ZSTD -> new ZstdEncoder(zstdLevel);
        };
    }

    /**
     * The coding this request's body may get, or null: the route compresses, it is not a {@code
     * HEAD}, the client speaks HTTP/1.1 or later (an HTTP/1.0 response would have to end with the
     * connection), and its {@code Accept-Encoding} takes one of the route's codings.
     *
     * @param version the request's protocol, such as {@code HTTP/1.1}
     * @param acceptEncoding the request's {@code Accept-Encoding}, null when absent
     */
    public Coding wanted(String version, String method, String acceptEncoding) {
        if (!isOn() || "HEAD".equals(method) || "HTTP/1.0".equals(version)) {
            return null;
        }
        return AcceptEncoding.choose(acceptEncoding, codings);
    }

    /**
     * Decides for a response whose head is about to leave, and edits the head for it: {@code Vary}
     * on every eligible response, and the compressed body's fields when it returns true. The engine
     * then writes the body through {@link #encoder}{@code (wanted)}, flushing it whenever it would
     * have flushed the plain body, and finishing it at the body's end.
     *
     * @param wanted what {@link #wanted} said of the request (null: none)
     */
    public boolean begin(Coding wanted, int status, ResponseHead head) {
        if (!isOn() || !eligible(status, head)) {
            return false;
        }
        String vary = head.get("Vary");
        if (vary == null || vary.isBlank()) {
            head.set("Vary", "Accept-Encoding");
        } else if (!mentions(vary, "accept-encoding") && !mentions(vary, "*")) {
            head.set("Vary", vary + ", Accept-Encoding");
        }
        if (wanted == null) {
            return false;
        }
        head.remove("Content-Length");
        head.set("Content-Encoding", wanted.token());
        String etag = head.get("ETag");
        if (etag != null && etag.startsWith("\"")) {
            head.set("ETag", "W/" + etag);
        }
        return true;
    }

    private boolean eligible(int status, ResponseHead head) {
        if (status < 200 || status == 204 || status == 206 || status == 304) {
            return false;
        }
        String encoding = head.get("Content-Encoding");
        if (encoding != null && !encoding.isBlank() && !encoding.trim().equalsIgnoreCase("identity")) {
            return false;
        }
        if (head.get("Content-Range") != null) {
            return false;
        }
        String cacheControl = head.get("Cache-Control");
        if (cacheControl != null && mentions(cacheControl, "no-transform")) {
            return false;
        }
        if (!listed(head.get("Content-Type"))) {
            return false;
        }
        String length = head.get("Content-Length");
        if (length != null) {
            try {
                return Long.parseLong(length.trim()) >= Math.max(1, minSize);
            } catch (NumberFormatException e) {
                return false;
            }
        }
        return true;
    }

    private boolean listed(String contentType) {
        if (contentType == null) {
            return false;
        }
        int semi = contentType.indexOf(';');
        String type =
                (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
        for (String t : types) {
            if (t.equals(type)) {
                return true;
            }
        }
        for (String prefix : prefixes) {
            if (type.startsWith(prefix) && type.length() > prefix.length()) {
                return true;
            }
        }
        return false;
    }

    /** Whether the comma-separated list {@code value} has the element {@code name} (case ignored). */
    private static boolean mentions(String value, String name) {
        for (String element : value.split(",")) {
            String e = element.trim();
            int eq = e.indexOf('=');
            if ((eq < 0 ? e : e.substring(0, eq).trim()).equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    /** A response head as the engine holds it, for {@link #begin}. */
    public interface ResponseHead {
        /** The field's first value, null when absent (name in any case). */
        String get(String name);

        /** Replaces every value of the field. */
        void set(String name, String value);

        void remove(String name);

        /** A head over an engine's own header type, given its three operations. */
        static ResponseHead of(
                java.util.function.Function<String, String> get,
                java.util.function.BiConsumer<String, String> set,
                java.util.function.Consumer<String> remove) {
            return new ResponseHead() {
                @Override
                public String get(String name) {
                    return get.apply(name);
                }

                @Override
                public void set(String name, String value) {
                    set.accept(name, value);
                }

                @Override
                public void remove(String name) {
                    remove.accept(name);
                }
            };
        }
    }
}
