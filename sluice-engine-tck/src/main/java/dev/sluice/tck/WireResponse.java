package dev.sluice.tck;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A response as it came off the wire.
 *
 * @param status the status code
 * @param headers by lower-case name, in arrival order
 * @param framing {@code chunked}, {@code length} or {@code close} (read until the connection ended)
 * @param complete whether the body ended as its framing says: the final {@code 0\r\n\r\n} chunk,
 *     or every byte of Content-Length. {@code false} means the client saw an aborted response
 * @param failure why the body did not end cleanly, or empty
 * @param length body bytes received
 * @param sha256 SHA-256 of the body bytes received, lower-case hex
 * @param kept the body bytes, when they fitted the client's keep limit
 * @param headNanos from the start of sending the request to the end of the response head
 * @param firstBodyByteNanos from the start of sending the request to the first body byte, or -1
 * @param totalNanos from the start of sending the request to the end of the body (or its failure)
 * @param trailers the trailer fields after a chunked body's last chunk, by lower-case name
 */
public record WireResponse(
        int status,
        Map<String, List<String>> headers,
        String framing,
        boolean complete,
        Optional<String> failure,
        long length,
        String sha256,
        Optional<byte[]> kept,
        long headNanos,
        long firstBodyByteNanos,
        long totalNanos,
        Map<String, List<String>> trailers) {

    /** The first value of a header, or empty. */
    public Optional<String> header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.getFirst());
    }

    /** The first value of a trailer field, or empty. */
    public Optional<String> trailer(String name) {
        List<String> values = trailers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.getFirst());
    }

    /** The whole body. */
    public byte[] body() {
        return kept.orElseThrow(() -> new IllegalStateException(
                        "body: " + length + " bytes (expected: within the client's keep limit to be kept)"))
                .clone();
    }

    public String bodyText() {
        return new String(body(), StandardCharsets.UTF_8);
    }

    public long firstBodyByteMillis() {
        return firstBodyByteNanos < 0 ? -1 : firstBodyByteNanos / 1_000_000;
    }

    public long totalMillis() {
        return totalNanos / 1_000_000;
    }

    @Override
    public String toString() {
        return "status " + status + ", " + framing + ", " + length + " bytes, "
                + (complete ? "complete" : "aborted (" + failure.orElse("?") + ")") + ", headers " + headers
                + (trailers.isEmpty() ? "" : ", trailers " + trailers);
    }
}
