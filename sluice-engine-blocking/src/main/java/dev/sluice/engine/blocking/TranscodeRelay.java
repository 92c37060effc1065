package dev.sluice.engine.blocking;

import dev.sluice.config.TranscodeConfig;
import dev.sluice.engine.blocking.upstream.H2UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamException;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.engine.blocking.upstream.UpstreamResponse;
import dev.sluice.http.BodyLimit;
import dev.sluice.http.BrokenRequestBody;
import dev.sluice.http.GrpcStatus;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.observe.ExchangeTally;
import dev.sluice.policy.UpstreamEdits;
import dev.sluice.transcode.TranscodeCall;
import dev.sluice.transcode.TranscodeException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * A {@code grpc-transcode:} route's exchange, every decision the core's {@link TranscodeCall}: the
 * client's JSON request (read whole, at most the route's body limit and {@code max-message}) becomes
 * one gRPC message sent over the upstream's h2/h2c connection, and each step the call returns for the
 * upstream's head, data and trailers is written and flushed as it comes.
 */
final class TranscodeRelay {

    private TranscodeRelay() {}

    static void relay(
            ProxyRoute route,
            Request request,
            Response response,
            TranscodeConfig config,
            UpstreamClient client,
            HeaderRules rules,
            UpstreamEdits edits,
            long maxBody,
            ScheduledExecutorService timer,
            Optional<Duration> timeout)
            throws Exception {
        String name = client.config().name();
        TranscodeCall call;
        byte[] frame;
        try {
            call = TranscodeCall.open(
                    config,
                    request.getMethod(),
                    request.getHttpURI().getPath(),
                    request.getHeaders().get(HttpHeader.ACCEPT));
            frame = call.requestFrame(request.getHttpURI().getQuery(), body(request, config, maxBody));
        } catch (TranscodeException e) { // no method here, or a request that is not the method's
            write(response, rules, name, TranscodeCall.refused(e));
            return;
        }
        UpstreamRequest out = new UpstreamRequest("POST", client.config().basePath() + call.grpcPath());
        Requests.departure(request).cancels(out);
        Requests.forwardHeaders(request, rules, edits, out); // the client's headers as the call's metadata
        for (String header : TranscodeCall.CLIENT_HEADERS_DROPPED) {
            out.removeHeader(header);
        }
        java.util.List<String> callHeaders = TranscodeCall.requestHeaders(
                timeout.map(Duration::toNanos).orElse(0L)); // with the route's timeout as grpc-timeout
        for (int i = 0; i < callHeaders.size(); i += 2) {
            out.header(callHeaders.get(i), callHeaders.get(i + 1));
        }
        out.body(new ByteArrayInputStream(frame), frame.length);
        CallDeadline deadline = CallDeadline.start(timer, out, timeout);
        long began = route.observed() ? System.nanoTime() : 0;
        boolean answered = false;
        try (deadline;
                UpstreamResponse upstream = client.send(out)) {
            answered = true;
            if (route.observed()) {
                route.answered(request, upstream.status(), System.nanoTime() - began);
            }
            ExchangeTally tally = Requests.tally(request);
            String status = upstream.header(GrpcStatus.STATUS_HEADER);
            if (tally != null) {
                tally.grpcStatus(status);
            }
            if (write(
                    response,
                    rules,
                    name,
                    call.head(upstream.status(), status, upstream.header(GrpcStatus.MESSAGE_HEADER)))) {
                return;
            }
            byte[] buffer = new byte[16 * 1024];
            while (true) {
                int n = upstream.readArrived(buffer, 0, buffer.length); // each message out as it arrives
                if (n < 0) {
                    break;
                }
                if (n > 0 && write(response, rules, name, call.data(ByteBuffer.wrap(buffer, 0, n)))) {
                    upstream.abort();
                    return;
                }
            }
            Supplier<HttpFields> trailers = H2UpstreamClient.trailers(upstream);
            HttpFields fields = trailers == null ? null : trailers.get();
            String grpcStatus = fields == null ? null : fields.get(GrpcStatus.STATUS_HEADER);
            if (tally != null && grpcStatus != null) {
                tally.grpcStatus(grpcStatus);
            }
            write(
                    response,
                    rules,
                    name,
                    call.end(grpcStatus, fields == null ? null : fields.get(GrpcStatus.MESSAGE_HEADER)));
        } catch (UpstreamException e) {
            if (route.observed() && !answered) {
                route.failed(e.failure(), System.nanoTime() - began);
            }
            throw deadline.failure(e, client.config().name());
        }
    }

    /** The client's JSON body, whole: at most the route's limit and the call's largest message. */
    private static byte[] body(Request request, TranscodeConfig config, long maxBody) throws GatewayError {
        long limit = BodyLimit.exceeds(config.maxMessage(), maxBody) ? maxBody : config.maxMessage();
        ClientBody body = new ClientBody(Request.asInputStream(request), limit, Requests.departure(request), -1);
        try (InputStream in = body) {
            return in.readAllBytes();
        } catch (IOException e) {
            if (body.tooLarge() != null) {
                var tooLarge = body.tooLarge().rejection();
                throw new GatewayError(tooLarge.status(), tooLarge.code(), tooLarge.reason(), true);
            }
            BrokenRequestBody broken = body.broken() != null ? body.broken() : new BrokenRequestBody(e);
            throw new GatewayError(BrokenRequestBody.STATUS, BrokenRequestBody.CODE, broken.getMessage());
        }
    }

    /**
     * Writes one step: its head when it starts the answer, its bytes flushed at once. Returns whether
     * the answer ended; throws when the step cuts it short (the client sees no clean end).
     */
    private static boolean write(Response response, HeaderRules rules, String name, TranscodeCall.Step step)
            throws IOException, UpstreamException {
        if (step.abort()) {
            throw new UpstreamException(
                    UpstreamFailure.BAD_RESPONSE, name, new IOException("the gRPC call failed mid-answer"));
        }
        if (step.status() != 0) {
            response.setStatus(step.status());
            HttpFields.Mutable headers = response.getHeaders();
            headers.put(HttpHeader.CONTENT_TYPE, step.contentType());
            for (Map.Entry<String, String> set : rules.responseSets().entrySet()) {
                headers.put(set.getKey(), set.getValue());
            }
        }
        if (step.body().length > 0 || step.end() || step.status() != 0) {
            ClientOutput.send(response, step.end(), ByteBuffer.wrap(step.body()));
        }
        return step.end();
    }
}
