package dev.sluice.engine.reactive;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;

/**
 * A response's headers as Netty's decoder adds them, remembering every {@code Transfer-Encoding} it
 * was given: for a response that can have no body (204, 304, to a HEAD), the decoder removes that
 * header before anyone sees the head, and the core's check ({@code ResponseHeadCheck}) must still
 * refuse such a head, as the blocking engine's parser does.
 */
final class ReceivedHeaders extends DefaultHttpHeaders {

    /** Makes these for the upstream client's decoder (validating, as Netty's default factory does). */
    static final HttpHeadersFactory FACTORY = new HttpHeadersFactory() {
        @Override
        public HttpHeaders newHeaders() {
            return new ReceivedHeaders();
        }

        @Override
        public HttpHeaders newEmptyHeaders() {
            return DefaultHttpHeadersFactory.headersFactory().newEmptyHeaders();
        }
    };

    private String transferEncoding; // every value given, joined with ","; null when none

    @Override
    public HttpHeaders add(CharSequence name, Object value) {
        if (HttpHeaderNames.TRANSFER_ENCODING.contentEqualsIgnoreCase(name)) {
            transferEncoding = transferEncoding == null ? String.valueOf(value) : transferEncoding + "," + value;
        }
        return super.add(name, value);
    }

    /** Every {@code Transfer-Encoding} value the response came with, even one removed since; or null. */
    String receivedTransferEncoding() {
        return transferEncoding;
    }
}
