package dev.sluice.engine.blocking;

import org.eclipse.jetty.http.HostPortHttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;

/**
 * An HTTP/2 request names its host in {@code :authority}, not in a Host field: this gives it the
 * Host its authority says, as Netty's translation of a stream to HTTP/1.1 objects does, so that
 * routing by host, {@code X-Forwarded-Host} and the policies see one request shape in every engine.
 * HTTP/1.x requests pass untouched (an HTTP/1.0 one without Host stays without).
 */
final class AuthorityAsHost implements HttpConfiguration.Customizer {

    @Override
    public Request customize(Request request, HttpFields.Mutable responseHeaders) {
        if (request.getConnectionMetaData().getHttpVersion() != HttpVersion.HTTP_2
                || request.getHeaders().contains(HttpHeader.HOST)
                || !request.getHttpURI().hasAuthority()) {
            return request;
        }
        HttpFields headers = HttpFields.build(request.getHeaders().size() + 1)
                .add(new HostPortHttpField(request.getHttpURI().getAuthority()))
                .add(request.getHeaders())
                .asImmutable();
        return new Request.Wrapper(request) {
            @Override
            public HttpFields getHeaders() {
                return headers;
            }
        };
    }
}
