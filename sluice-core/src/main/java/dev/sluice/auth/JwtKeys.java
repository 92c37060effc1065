package dev.sluice.auth;

import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKMatcher;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyConverter;
import com.nimbusds.jose.jwk.source.JWKSetBasedJWKSource;
import com.nimbusds.jose.jwk.source.JWKSetCacheRefreshEvaluator;
import com.nimbusds.jose.jwk.source.JWKSetSource;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jose.util.Resource;
import dev.sluice.config.Redact;
import java.io.IOException;
import java.net.URL;
import java.security.Key;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import javax.crypto.spec.SecretKeySpec;

/**
 * The keys a {@link JwtPolicy} verifies signatures with: a fixed set (a JWKS file, a shared secret)
 * or a JWKS fetched from a URL. {@link #cached} answers from memory only, so a policy may ask it on
 * an event loop; {@link #fetch} may go to the network and is asked on another thread.
 */
abstract sealed class JwtKeys permits JwtKeys.Fixed, JwtKeys.Remote {

    /** The keys that may have signed a token with {@code header}; null when only a fetch can tell. */
    abstract List<Key> cached(JWSHeader header);

    /** The same, fetching the key set when it must (blocks). */
    abstract List<Key> fetch(JWSHeader header) throws KeySourceException;

    /** Whether the key set's last fetch failed: the keys cannot be fetched now. */
    boolean unavailable() {
        return false;
    }

    /**
     * A JWKS with its keys converted to Java keys once, not per token (a conversion builds a key
     * object through a {@code KeyFactory}, and an EC key is checked to be on its curve).
     */
    record KeySet(JWKSet set, Map<JWK, List<Key>> converted) {
        static KeySet of(JWKSet set) {
            Map<JWK, List<Key>> converted = new IdentityHashMap<>();
            for (JWK jwk : set.getKeys()) {
                converted.put(jwk, KeyConverter.toJavaKeys(List.of(jwk)));
            }
            return new KeySet(set, converted);
        }

        /** The keys that match the header's algorithm (key type) and {@code kid}. */
        List<Key> select(JWSHeader header) {
            JWKMatcher matcher = JWKMatcher.forJWSHeader(header);
            if (matcher == null) {
                return List.of();
            }
            List<JWK> selected = new JWKSelector(matcher).select(set);
            if (selected.size() == 1) {
                List<Key> keys = converted.get(selected.getFirst());
                return keys != null ? keys : KeyConverter.toJavaKeys(selected);
            }
            List<Key> keys = new ArrayList<>();
            for (JWK jwk : selected) {
                List<Key> one = converted.get(jwk);
                keys.addAll(one != null ? one : KeyConverter.toJavaKeys(List.of(jwk)));
            }
            return keys;
        }
    }

    /** A key set that never changes: a JWKS file, or a shared secret. */
    static final class Fixed extends JwtKeys {
        private final KeySet set; // or null with a secret
        private final List<Key> secret;

        private Fixed(KeySet set, List<Key> secret) {
            this.set = set;
            this.secret = secret;
        }

        static Fixed of(JWKSet set) {
            return new Fixed(KeySet.of(set.toPublicJWKSet()), List.of());
        }

        static Fixed secret(byte[] secret) {
            return new Fixed(null, List.of(new SecretKeySpec(secret, "HmacSHA256")));
        }

        @Override
        List<Key> cached(JWSHeader header) {
            return set == null ? secret : set.select(header);
        }

        @Override
        List<Key> fetch(JWSHeader header) {
            return cached(header);
        }
    }

    /**
     * A JWKS from a URL, through nimbus's {@link JWKSourceBuilder}: cached for {@code cache},
     * refreshed ahead of expiry (on {@code fetches}, not on the asking thread), re-fetched when a
     * token names a {@code kid} the cached set lacks (rate-limited: two fetches per interval), retried
     * once, and served from cache while the URL fails (outage tolerance, ten times {@code cache}).
     *
     * <p>The set nimbus last handed out is mirrored here with the time it was handed out: {@link
     * #cached} answers from the mirror while it is younger than the point where nimbus would begin
     * to refresh ahead, so the common case never touches nimbus' locks or the network.
     */
    static final class Remote extends JwtKeys {
        private record Mirror(KeySet keys, long atNanos) {}

        private final JWKSource<SecurityContext> source;
        private final Outage outage;
        private final long freshNanos;
        private final LongSupplier nanoClock;
        private volatile Mirror mirror;

        Remote(URL url, Duration cache, ExecutorService fetches, LongSupplier nanoClock) {
            this.nanoClock = nanoClock;
            long ttl = Math.max(cache.toMillis(), 100);
            long refreshTimeout = Math.min(15_000, ttl / 4);
            long ahead = Math.min(30_000, ttl / 4);
            long refetch = Math.min(30_000, ttl / 2);
            this.outage = new Outage(url);
            JWKSource<SecurityContext> built = JWKSourceBuilder.<SecurityContext>create(url, outage)
                    .cache(ttl, refreshTimeout)
                    .refreshAheadCache(ahead, null, fetches, false, null, false)
                    .rateLimited(refetch)
                    .retrying(true)
                    .outageTolerant(ttl * 10)
                    .build();
            JWKSetSource<SecurityContext> chain = ((JWKSetBasedJWKSource<SecurityContext>) built).getJWKSetSource();
            this.source = new JWKSetBasedJWKSource<>(new JWKSetSource<>() {
                @Override
                public JWKSet getJWKSet(JWKSetCacheRefreshEvaluator refresh, long currentTime, SecurityContext context)
                        throws KeySourceException {
                    JWKSet set = chain.getJWKSet(refresh, currentTime, context);
                    Mirror last = mirror;
                    KeySet keys = last != null && last.keys.set() == set ? last.keys : KeySet.of(set);
                    mirror = new Mirror(keys, Remote.this.nanoClock.getAsLong());
                    return set;
                }

                @Override
                public void close() throws IOException {
                    chain.close();
                }
            });
            this.freshNanos = (ttl - ahead) * 1_000_000L;
        }

        @Override
        List<Key> cached(JWSHeader header) {
            Mirror m = mirror;
            if (m == null || nanoClock.getAsLong() - m.atNanos > freshNanos) {
                return null;
            }
            List<Key> keys = m.keys.select(header);
            return keys.isEmpty() ? null : keys; // an unknown kid: maybe a rotation, ask nimbus
        }

        @Override
        boolean unavailable() {
            return outage.failing();
        }

        @Override
        List<Key> fetch(JWSHeader header) throws KeySourceException {
            JWKMatcher matcher = JWKMatcher.forJWSHeader(header);
            if (matcher == null) {
                return List.of();
            }
            List<JWK> jwks = source.get(new JWKSelector(matcher), null);
            return KeyConverter.toJavaKeys(jwks);
        }
    }

    /**
     * The retriever of a remote key set (2 s timeouts, at most 512 KiB), which remembers whether the
     * last fetch failed and logs the change, once at WARN when the fetches begin to fail and once when
     * one succeeds again: never per request (nimbus' rate limit already bounds the fetches during an
     * outage), never with a token, and the URL without its user info.
     */
    static final class Outage extends DefaultResourceRetriever {
        private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JwtPolicy.class);

        private final String shown;
        private final AtomicBoolean failing = new AtomicBoolean();

        Outage(URL url) {
            super(2_000, 2_000, 512 * 1024);
            this.shown = Redact.url(url.toString());
        }

        boolean failing() {
            return failing.get();
        }

        @Override
        public Resource retrieveResource(URL url) throws IOException {
            Resource resource;
            try {
                resource = super.retrieveResource(url);
            } catch (IOException | RuntimeException e) {
                if (failing.compareAndSet(false, true)) {
                    LOG.warn(
                            "jwt: the JWKS at {} cannot be fetched ({}); tokens whose key is not cached are"
                                    + " answered 503 keys_unavailable until it can",
                            shown,
                            e.toString());
                }
                throw e;
            }
            if (failing.compareAndSet(true, false)) {
                LOG.warn("jwt: the JWKS at {} is fetched again", shown);
            }
            return resource;
        }
    }
}
