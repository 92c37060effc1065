package dev.sluice.tls;

import dev.sluice.http.RequestFraming.Rejection;

/**
 * Plain HTTP sent to a TLS listener (nginx's {@code 497}): every engine answers it {@link #REJECTION}
 * in plain HTTP, then closes, and logs none of its bytes (docs/ENGINE-CONTRACT.md, "TLS").
 */
public final class PlainHttpOnTls {

    /** {@code 400 plain_http_on_tls_port}, with {@code Connection: close}. */
    public static final Rejection REJECTION =
            new Rejection(400, "plain_http_on_tls_port", "plain HTTP was sent to the TLS port: use https");

    private PlainHttpOnTls() {}

    /**
     * Whether a connection's first byte starts plain HTTP rather than TLS: a request line begins with
     * a method, an upper-case ASCII letter; a TLS record with its content type (20 to 24), and an
     * SSLv2 hello with a byte of 0x80 or above.
     */
    public static boolean plainHttp(int firstByte) {
        return firstByte >= 'A' && firstByte <= 'Z';
    }
}
