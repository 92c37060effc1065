package dev.sluice.engine.blocking.upstream;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.upstream.Pacer;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.HttpHostConnectException;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.ManagedHttpClientConnectionFactory;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ConnectionRequestTimeoutException;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.ProtocolException;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.http.impl.io.DefaultHttpResponseParserFactory;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.pool.PoolReusePolicy;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * {@link UpstreamClient} on Apache HttpClient 5 classic: plain blocking socket I/O, which on a
 * virtual thread costs no platform thread while it waits. One pool per upstream, sized from
 * {@code max-connections}; at most {@code max-connections + max-pending} calls in flight or
 * waiting, beyond that {@code 503 pool_exhausted} at once.
 */
public final class ApacheUpstreamClient implements UpstreamClient {

    private static final java.net.URI ROOT = java.net.URI.create("/");

    private final UpstreamConfig config;
    private final HttpHost host;
    private final String basePath;
    private final PoolingHttpClientConnectionManager pool;
    private final CloseableHttpClient client;
    private final Semaphore admission;
    private final Pacer pacer;

    public ApacheUpstreamClient(UpstreamConfig config) {
        this.config = requireNonNull(config, "config");
        this.host = new HttpHost("http", config.host(), config.port());
        this.basePath = config.basePath();
        this.pool = PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnTotal(config.maxConnections())
                .setMaxConnPerRoute(config.maxConnections())
                .setPoolConcurrencyPolicy(PoolConcurrencyPolicy.STRICT)
                .setConnPoolPolicy(PoolReusePolicy.LIFO)
                .setDefaultSocketConfig(
                        SocketConfig.custom().setTcpNoDelay(true).build())
                // HttpClient's own response parser skips garbage before a status line; the core one
                // refuses it, so a malformed response is a 502 bad_response, not a silent reset.
                .setConnectionFactory(ManagedHttpClientConnectionFactory.builder()
                        .responseParserFactory(new DefaultHttpResponseParserFactory(Http1Config.DEFAULT))
                        .build())
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(timeout(config.connectTimeout()))
                        .setSocketTimeout(timeout(config.readTimeout()))
                        .setValidateAfterInactivity(TimeValue.ofSeconds(2))
                        .build())
                .build();
        this.client = HttpClients.custom()
                .setConnectionManager(pool)
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(timeout(config.acquireTimeout()))
                        .setResponseTimeout(timeout(config.readTimeout()))
                        .setRedirectsEnabled(false)
                        .build())
                // A pooled connection the upstream closed while idle fails the next request before any
                // response byte: retry such an idempotent request once on a fresh connection. Never on a
                // status (429/503 are the upstream's answer), a timeout, a refused connect, or a request
                // whose streamed body cannot be sent twice.
                .setRetryStrategy(
                        new DefaultHttpRequestRetryStrategy(
                                1,
                                TimeValue.ZERO_MILLISECONDS,
                                List.of(
                                        InterruptedIOException.class,
                                        UnknownHostException.class,
                                        ConnectException.class,
                                        NoRouteToHostException.class,
                                        SSLException.class),
                                List.of()) {})
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableContentCompression()
                .disableAuthCaching()
                .disableConnectionState()
                .evictIdleConnections(TimeValue.of(config.idleTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .evictExpiredConnections()
                .build();
        this.admission = new Semaphore(config.maxConnections() + config.maxPending());
        this.pacer = config.pace().map(Pacer::new).orElse(null);
    }

    private static Timeout timeout(java.time.Duration d) {
        return Timeout.ofMilliseconds(Math.max(1, d.toMillis()));
    }

    @Override
    public UpstreamConfig config() {
        return config;
    }

    @Override
    public UpstreamResponse send(UpstreamRequest request) throws UpstreamException {
        if (!admission.tryAcquire()) {
            throw new UpstreamException(UpstreamFailure.POOL_EXHAUSTED, config.name(), null);
        }
        HttpUriRequestBase message = new HttpUriRequestBase(request.method(), ROOT);
        message.setPath(request.target()); // raw target, sent verbatim: no URI parsing on the hot path
        try {
            for (int i = 0, n = request.headerCount(); i < n; i++) {
                message.addHeader(request.headerName(i), request.headerValue(i));
            }
            InputStream body = request.body();
            if (body != null) {
                message.setEntity(new InputStreamEntity(body, request.contentLength(), null));
            }
            request.onCancel(message::cancel);
            if (pacer != null) {
                request.awaitTurn(pacer.reserve(), config.name());
            }
            ClassicHttpResponse response = client.executeOpen(host, message, null);
            return new Response(message, response);
        } catch (IOException | RuntimeException e) {
            admission.release();
            throw classify(e);
        }
    }

    UpstreamException classify(Exception e) {
        UpstreamFailure failure;
        if (e instanceof ConnectTimeoutException) {
            failure = UpstreamFailure.CONNECT_TIMEOUT;
        } else if (e instanceof HttpHostConnectException) {
            failure = UpstreamFailure.REFUSED;
        } else if (e instanceof ConnectionRequestTimeoutException) {
            failure = UpstreamFailure.POOL_EXHAUSTED;
        } else if (e instanceof SocketTimeoutException) {
            failure = UpstreamFailure.READ_TIMEOUT;
        } else if (isProtocolError(e)) {
            failure = UpstreamFailure.BAD_RESPONSE;
        } else if (e instanceof java.net.ConnectException) {
            failure = UpstreamFailure.REFUSED;
        } else {
            failure = UpstreamFailure.RESET;
        }
        return new UpstreamException(failure, config.name(), e);
    }

    private static boolean isProtocolError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ProtocolException
                    || t instanceof org.apache.hc.client5.http.ClientProtocolException
                    || t instanceof org.apache.hc.core5.http.MalformedChunkCodingException
                    || t instanceof org.apache.hc.core5.http.ParseException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        client.close(CloseMode.IMMEDIATE);
    }

    private final class Response implements UpstreamResponse {
        private final HttpUriRequestBase message;
        private final ClassicHttpResponse response;
        private final Header[] headers;
        private final InputStream body;
        private final long contentLength;
        private boolean ended;
        private boolean released;

        Response(HttpUriRequestBase message, ClassicHttpResponse response) throws IOException {
            this.message = message;
            this.response = response;
            this.headers = response.getHeaders();
            HttpEntity entity = response.getEntity();
            this.body = entity == null ? null : entity.getContent();
            this.contentLength = entity == null ? 0 : entity.getContentLength();
            this.ended = body == null;
        }

        @Override
        public int status() {
            return response.getCode();
        }

        @Override
        public int headerCount() {
            return headers.length;
        }

        @Override
        public String headerName(int i) {
            return headers[i].getName();
        }

        @Override
        public String headerValue(int i) {
            return headers[i].getValue();
        }

        @Override
        public long contentLength() {
            return contentLength;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws UpstreamException {
            if (ended) {
                return -1;
            }
            try {
                int n = body.read(buffer, offset, length);
                if (n < 0) {
                    ended = true;
                }
                return n;
            } catch (IOException | RuntimeException e) {
                throw classify(e);
            }
        }

        @Override
        public void abort() {
            message.cancel();
        }

        @Override
        public void close() {
            if (released) {
                return;
            }
            released = true;
            try {
                if (!ended) {
                    message.cancel(); // otherwise closing would drain the rest of the body
                }
                response.close();
            } catch (IOException | RuntimeException ignored) {
                // the connection is dropped either way
            } finally {
                admission.release();
            }
        }
    }
}
