package dev.sluice.engine.blocking;

import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamException;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.engine.blocking.upstream.UpstreamResponse;
import dev.sluice.http.BrokenRequestBody;
import dev.sluice.http.GrpcWeb;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.RequestFraming;
import dev.sluice.http.ResponseHeadCheck;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.policy.UpstreamEdits;
import dev.sluice.routing.ProxyPath;
import dev.sluice.routing.RouteTable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/** Reverse proxy to one upstream: request and response bodies streamed through a 16 KB buffer. */
final class ProxyRoute implements BlockingRoute {

    private static final int BUFFER = 16 * 1024;

    private final ProxyTarget target;
    private final UpstreamClient client;
    private final HeaderRules rules;
    private final String basePath;
    private final ScheduledExecutorService timer;
    private final long maxBody;
    private final dev.sluice.observe.CallReport report; // the core makes and tells the call's event
    private final ByteBufferPool buffers; // the server's: what a response is relayed through

    /**
     * @param maxBody the largest request body the route takes ({@link dev.sluice.http.BodyLimit})
     * @param observer told of the upstream call ({@link GatewayObserver#NONE}: nobody is)
     */
    ProxyRoute(
            RouteConfig route,
            ProxyTarget target,
            UpstreamClient client,
            ScheduledExecutorService timer,
            long maxBody,
            GatewayObserver observer,
            ByteBufferPool buffers) {
        this.maxBody = maxBody;
        this.buffers = buffers;
        this.report =
                new dev.sluice.observe.CallReport(route.id(), client.config().name(), observer);
        this.target = target;
        this.client = client;
        this.rules = HeaderRules.of(route);
        this.basePath = client.config().basePath();
        this.timer = timer;
    }

    @Override
    public void handle(Request request, Response response, RouteTable.Result.Matched match, UpstreamEdits edits)
            throws Exception {
        if (request.getAttribute(WebSocketRelay.REQUESTED) instanceof java.time.Duration idle) {
            new WebSocketRelay(this, client, rules, idle)
                    .relay(request, response, upstreamTarget(request, match, edits), edits);
            return;
        }
        if (target.transcode().isPresent()) { // JSON to a gRPC method (TranscodeCall)
            TranscodeRelay.relay(
                    this,
                    request,
                    response,
                    target.transcode().get(),
                    client,
                    rules,
                    edits,
                    maxBody,
                    timer,
                    target.timeout());
            return;
        }
        UpstreamRequest out = new UpstreamRequest(request.getMethod(), upstreamTarget(request, match, edits));
        ClientDeparture departure = Requests.departure(request);
        departure.cancels(out);
        Requests.forwardHeaders(request, rules, edits, out);
        HttpFields headers = request.getHeaders();
        GrpcWeb web =
                client.config().protocol().multiplexed() ? GrpcWeb.of(headers.get(HttpHeader.CONTENT_TYPE)) : null;
        if (web != null) { // translated to a gRPC call (GrpcWeb)
            web.upstreamHead(out::removeHeader, out::header);
        }
        long length = RequestFraming.upstreamBody(
                request.getConnectionMetaData().getHttpVersion() == HttpVersion.HTTP_2,
                headers.get(HttpHeader.CONTENT_LENGTH),
                headers.contains(HttpHeader.TRANSFER_ENCODING),
                false); // Jetty tells a stream's END_STREAM by its content: the first read finds it
        InputStream content = null;
        if (length == 0) {
            departure.markReadWhole();
        } else if (length == RequestFraming.AT_FIRST_DATA) {
            Http2RequestBody.Framed framed;
            try {
                framed = Http2RequestBody.first(request);
            } catch (IOException e) { // the client broke its stream before its first DATA frame
                BrokenRequestBody broken = new BrokenRequestBody(e);
                throw new GatewayError(BrokenRequestBody.STATUS, BrokenRequestBody.CODE, broken.getMessage());
            }
            length = framed.length();
            content = framed.body();
        } else {
            content = Request.asInputStream(request);
        }
        ClientBody body = null;
        if (content != null && web != null && web.text()) {
            content = GrpcWebRelay.body(web, content);
            length = -1;
        }
        if (content != null) {
            body = new ClientBody(content, maxBody, departure, length);
            out.body(body, length);
        }
        java.util.Optional<java.time.Duration> timeout =
                GrpcAnswers.isGrpc(request) // grpc-timeout (gRPC and gRPC-Web): the call's deadline
                        ? dev.sluice.http.GrpcStatus.deadline(
                                target.timeout(), headers.get(dev.sluice.http.GrpcStatus.TIMEOUT_HEADER))
                        : target.timeout();
        CallDeadline deadline = CallDeadline.start(timer, out, timeout);
        long began = report.listens() ? System.nanoTime() : 0;
        boolean answered = false;
        try (deadline;
                UpstreamResponse upstream = send(out)) {
            answered = true;
            if (report.listens()) {
                answered(request, upstream.status(), System.nanoTime() - began);
            }
            if (web != null) {
                GrpcWebRelay.relay(request, upstream, response, rules, web);
                return;
            }
            TrailerRelay.attach(request, upstream, response); // an HTTP/2 upstream's trailers (gRPC's status)
            relay(upstream, response);
        } catch (UpstreamException e) {
            report.failed(
                    e.failure(),
                    answered,
                    body != null && (body.tooLarge() != null || body.broken() != null),
                    out.isCancelled(),
                    System.nanoTime() - began);
            if (body != null && body.tooLarge() != null) { // the body passed the route's limit
                RequestFraming.Rejection tooLarge = body.tooLarge().rejection();
                throw new GatewayError(tooLarge.status(), tooLarge.code(), tooLarge.reason(), true);
            }
            if (body != null && body.broken() != null) { // the client broke its body, not the upstream
                BrokenRequestBody broken = body.broken();
                throw new GatewayError(BrokenRequestBody.STATUS, BrokenRequestBody.CODE, broken.getMessage());
            }
            throw deadline.failure(e, client.config().name());
        }
    }

    /** Whether an observer listens, so that {@link #answered} and {@link #failed} are worth a clock. */
    boolean observed() {
        return report.listens();
    }

    /** The upstream call failed before its status line: the observer is told. */
    void failed(UpstreamFailure failure, long nanos) {
        report.failed(failure, false, false, false, nanos);
    }

    /** The upstream's status line came {@code nanos} after the call began: the observer and the tally are told. */
    void answered(Request request, int status, long nanos) {
        report.answered(status, nanos, Requests.tally(request));
    }

    private UpstreamResponse send(UpstreamRequest out) throws UpstreamException {
        return client.send(out);
    }

    void relay(UpstreamResponse upstream, Response response) throws IOException, UpstreamException {
        response.setStatus(upstream.status());
        HttpFields.Mutable headers = response.getHeaders();
        String connection = upstream.header(HeaderRules.CONNECTION);
        for (int i = 0, n = upstream.headerCount(); i < n; i++) {
            String name = upstream.headerName(i);
            if (rules.forwardResponse(name, connection)) {
                headers.add(name, upstream.headerValue(i));
            }
        }
        for (Map.Entry<String, String> set : rules.responseSets().entrySet()) {
            headers.put(set.getKey(), set.getValue());
        }
        chunkUnknownLength(response.getRequest(), response, upstream.status());
        long expected = upstream.contentLength();
        int size = expected >= 0 && expected < BUFFER ? (int) Math.max(expected, 1) : BUFFER;
        RetainableByteBuffer pooled = buffers.acquire(size, false); // writes block, so it is free again on release
        try {
            ByteBuffer buffer = pooled.getByteBuffer();
            byte[] array = buffer.array();
            int base = buffer.arrayOffset();
            long relayed = 0;
            while (true) {
                int n = upstream.readArrived(array, base, size); // what already arrived goes out in the same write
                if (n < 0) {
                    ClientOutput.send(response, true, ByteBuffer.allocate(0));
                    return;
                }
                relayed += n;
                boolean last = expected >= 0 && relayed >= expected;
                ClientOutput.send(response, last, ByteBuffer.wrap(array, base, n));
                if (last) {
                    upstream.read(array, base, size); // sees the end of the body, so the connection is pooled
                    return;
                }
            }
        } finally {
            pooled.release();
        }
    }

    /**
     * Asks Jetty to chunk a body of unknown length (no {@code Content-Length} on {@code response}) to an
     * HTTP/1.1 client, as the core's {@link ResponseHeadCheck#chunksUnknownLength} says, which Jetty would
     * otherwise delimit by the close to a client that sent {@code Connection: close}: an answer cut short
     * then ends with no last chunk, never as a whole body.
     */
    static void chunkUnknownLength(Request request, Response response, int status) {
        HttpFields.Mutable headers = response.getHeaders();
        if (!headers.contains(HttpHeader.CONTENT_LENGTH)
                && ResponseHeadCheck.chunksUnknownLength(
                        request.getConnectionMetaData().getHttpVersion() == HttpVersion.HTTP_1_1,
                        request.getMethod().equals("HEAD"),
                        status)) {
            headers.put(HttpHeader.TRANSFER_ENCODING, HttpHeaderValue.CHUNKED.asString());
        }
    }

    private String upstreamTarget(Request request, RouteTable.Result.Matched match, UpstreamEdits edits) {
        return ProxyPath.target(
                target,
                basePath,
                match,
                Requests.lazyQuery(request),
                edits.query(request.getHttpURI().getQuery()));
    }
}
