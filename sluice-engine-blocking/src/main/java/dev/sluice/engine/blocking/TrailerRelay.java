package dev.sluice.engine.blocking;

import dev.sluice.engine.blocking.upstream.H2UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamResponse;
import dev.sluice.http.GrpcStatus;
import dev.sluice.observe.ExchangeTally;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * Relays an HTTP/2 upstream's trailers (gRPC's {@code grpc-status} above all) to a client that can take
 * them: one on HTTP/2, or on HTTP/1.1 that sent {@code TE: trailers} (they go in the last chunk).
 */
final class TrailerRelay {

    private TrailerRelay() {}

    /** Before the response is committed: its trailers will be the upstream's, read at the body's end. */
    static void attach(Request request, UpstreamResponse upstream, Response response) {
        Supplier<HttpFields> trailers = H2UpstreamClient.trailers(upstream);
        if (trailers == null) {
            return;
        }
        ExchangeTally tally = Requests.tally(request);
        if (tally != null) { // a trailers-only answer carries its gRPC status in the head
            tally.grpcStatus(upstream.header(GrpcStatus.STATUS_HEADER));
        }
        if (!takesTrailers(request)) {
            return;
        }
        response.setTrailersSupplier(() -> {
            HttpFields fields = trailers.get();
            if (fields == null || fields.size() == 0) {
                return null;
            }
            if (tally != null) {
                tally.grpcStatus(fields.get(GrpcStatus.STATUS_HEADER));
            }
            HttpFields.Mutable relayed = HttpFields.build(fields.size());
            for (HttpField field : fields) {
                if (!dev.sluice.http.PseudoHeaders.notATrailer(field.getLowerCaseName())) {
                    relayed.add(field);
                }
            }
            return relayed;
        });
    }

    private static boolean takesTrailers(Request request) { // the core decides
        return dev.sluice.http.ClientTrailers.accepted(
                request.getConnectionMetaData().getHttpVersion() == HttpVersion.HTTP_2,
                request.getHeaders().getValuesList(HttpHeader.TE));
    }
}
