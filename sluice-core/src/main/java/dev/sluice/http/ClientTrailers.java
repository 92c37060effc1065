package dev.sluice.http;

/**
 * Whether the client can take a response's trailers (an HTTP/2 upstream's, gRPC's {@code
 * grpc-status} above all), the one answer both engines relay them by: every HTTP/2 client; an
 * HTTP/1.x one only when a {@code TE} field lists the {@code trailers} token (RFC 9110 section
 * 10.1.4; in any of its fields, in any case; a token that only contains the word, such as {@code
 * x-trailers}, is not it). The trailers then go in the last chunk.
 */
public final class ClientTrailers {

    private ClientTrailers() {}

    /**
     * @param http2 the client speaks HTTP/2
     * @param te every value of the request's {@code TE} fields, in order (empty when none)
     */
    public static boolean accepted(boolean http2, Iterable<? extends CharSequence> te) {
        if (http2) {
            return true;
        }
        for (CharSequence value : te) {
            if (HopByHop.listed("trailers", value.toString())) {
                return true;
            }
        }
        return false;
    }
}
