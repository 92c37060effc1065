package dev.sluice.engine.reactive;

import dev.sluice.http.HeaderRules;
import dev.sluice.http.PseudoHeaders;
import dev.sluice.upstream.Endpoint;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;

/** The headers of a call to an HTTP/2 upstream ({@link H2Upstream}, {@link TranscodeRelay}). */
final class H2CallHeaders {

    private H2CallHeaders() {}

    /**
     * The client's headers as {@code rules} pass them, with the forwarding ones for {@code endpoint},
     * less the names HTTP/2 forbids (connection-specific) and {@code Host} (the call's :authority).
     */
    static HttpHeaders of(ClientRequest in, HeaderRules rules, Upstream upstream, Endpoint endpoint) {
        HttpHeaders headers = new DefaultHttpHeaders();
        in.copyHeaders(rules, headers);
        in.addForwarding(rules, upstream.authority(endpoint), headers);
        return strip(headers);
    }

    /** {@code headers} without what a request over h2 does not send ({@link PseudoHeaders#NOT_SENT_OVER_H2}). */
    static HttpHeaders strip(HttpHeaders headers) {
        for (String name : PseudoHeaders.NOT_SENT_OVER_H2) {
            headers.remove(name);
        }
        return headers;
    }
}
