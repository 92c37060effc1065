package dev.sluice.engine.blocking;

import dev.sluice.compose.PartCache;
import dev.sluice.config.PartCaching;
import dev.sluice.config.UpstreamConfig;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamException;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.engine.blocking.upstream.UpstreamResponse;
import java.util.Optional;
import java.util.function.Function;

/**
 * The upstream of a part with {@code cache:}, for one composition: a fresh answer in the core's
 * {@link PartCache} is served from memory (the upstream is not called, the plan is told), any other
 * is fetched and, when the cache may keep it, copied as it streams ({@link Recording}). The part's
 * fetch reads either as it reads any upstream answer.
 */
final class CachedPartClient implements UpstreamClient {

    private final UpstreamClient client;
    private final PartCache cache;
    private final PartCaching policy;
    private final String upstream;
    private final Runnable hit; // tells the plan: answered from the cache

    CachedPartClient(UpstreamClient client, PartCache cache, PartCaching policy, String upstream, Runnable hit) {
        this.client = client;
        this.cache = cache;
        this.policy = policy;
        this.upstream = upstream;
        this.hit = hit;
    }

    @Override
    public UpstreamResponse send(UpstreamRequest request) throws UpstreamException {
        Function<String, String> sent = name -> header(request, name);
        Optional<PartCache.Entry> entry = cache.lookup(upstream, request.target(), sent);
        if (entry.isPresent()) {
            hit.run();
            return new Cached(entry.get());
        }
        UpstreamResponse response = client.send(request);
        PartCache.Recorder recorder =
                cache.record(upstream, request.target(), policy, response.status(), response::header, sent);
        return recorder == null ? response : new Recording(response, recorder);
    }

    private static String header(UpstreamRequest request, String name) {
        for (int i = 0, n = request.headerCount(); i < n; i++) {
            if (request.headerName(i).equalsIgnoreCase(name)) {
                return request.headerValue(i);
            }
        }
        return null;
    }

    @Override
    public UpstreamConfig config() {
        return client.config();
    }

    @Override
    public void close() {} // the client is the gateway's, not this composition's

    /** A cached answer, read from memory. */
    private static final class Cached implements UpstreamResponse {
        private final PartCache.Entry entry;
        private int pos;

        Cached(PartCache.Entry entry) {
            this.entry = entry;
        }

        @Override
        public int status() {
            return 200;
        }

        @Override
        public int headerCount() {
            return entry.contentType() == null ? 0 : 1;
        }

        @Override
        public String headerName(int i) {
            return "Content-Type";
        }

        @Override
        public String headerValue(int i) {
            return entry.contentType();
        }

        @Override
        public long contentLength() {
            return entry.body().length;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) {
            byte[] body = entry.body();
            if (pos == body.length) {
                return -1;
            }
            int n = Math.min(length, body.length - pos);
            System.arraycopy(body, pos, buffer, offset, n);
            pos += n;
            return n;
        }

        @Override
        public int available() {
            return entry.body().length - pos;
        }

        @Override
        public void abort() {}

        @Override
        public void close() {}
    }

    /** An upstream answer whose body is copied into the cache's recorder as it is read. */
    private static final class Recording implements UpstreamResponse {
        private final UpstreamResponse response;
        private final PartCache.Recorder recorder;
        private boolean recording = true;

        Recording(UpstreamResponse response, PartCache.Recorder recorder) {
            this.response = response;
            this.recorder = recorder;
        }

        private int recorded(byte[] buffer, int offset, int n) {
            if (n > 0 && recording) {
                recording = recorder.add(buffer, offset, n); // past max-entry: the rest streams uncopied
            } else if (n < 0 && recording) {
                recorder.finish(); // the whole body: kept
            }
            return n;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws UpstreamException {
            return recorded(buffer, offset, response.read(buffer, offset, length));
        }

        @Override
        public int readArrived(byte[] buffer, int offset, int length) throws UpstreamException {
            return recorded(buffer, offset, response.readArrived(buffer, offset, length));
        }

        @Override
        public int available() {
            return response.available();
        }

        @Override
        public int status() {
            return response.status();
        }

        @Override
        public int headerCount() {
            return response.headerCount();
        }

        @Override
        public String headerName(int i) {
            return response.headerName(i);
        }

        @Override
        public String headerValue(int i) {
            return response.headerValue(i);
        }

        @Override
        public long contentLength() {
            return response.contentLength();
        }

        @Override
        public void abort() {
            response.abort();
        }

        @Override
        public void close() {
            response.close();
        }
    }
}
