package dev.sluice.http;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether a client's request head frames a request the gateway may route (RFC 9112), decided once
 * for every engine. Engines ask it after their HTTP parser accepted the head and before routing; a
 * rejection is answered with its JSON {@link ErrorBody} and the connection closes, since a request
 * whose framing is in doubt leaves no safe place to read the next one from.
 *
 * <pre>
 *   version not HTTP/1.0 or HTTP/1.1                    505 version_not_supported
 *   a control byte (0x00-0x20, 0x7F) in the target      400 bad_request
 *   HTTP/1.1 without Host, two Hosts, an invalid Host   400 bad_request   (RFC 9112 3.2)
 *   Content-Length not digits, a list or two fields     400 bad_request   (RFC 9112 6.3)
 *   Transfer-Encoding with Content-Length               400 bad_request   (RFC 9112 6.1: rejected)
 *   Transfer-Encoding on HTTP/1.0                       400 bad_request   (RFC 9112 6.1)
 *   Transfer-Encoding not ending in one chunked         400 bad_request   (RFC 9112 6.3)
 *   any coding besides chunked (identity, gzip, ...)    501 not_implemented (RFC 9112 6.1)
 * </pre>
 */
public final class RequestFraming {

    private RequestFraming() {}

    /**
     * The parts of a request head that decide its framing, as the engine's parser left them.
     *
     * @param version the protocol text of the request line, {@code HTTP/1.1}
     * @param method the request's method
     * @param target the request target as received (not decoded; a fragment kept, if the engine's
     *     parser took one off)
     * @param hosts every Host field value, in order
     * @param transferEncodings every Transfer-Encoding field value
     * @param contentLengths every Content-Length field value
     * @param expectations every Expect field value
     */
    public record Head(
            String version,
            String method,
            String target,
            List<String> hosts,
            List<String> transferEncodings,
            List<String> contentLengths,
            List<String> expectations) {
        public Head {
            requireNonNull(version, "version");
            requireNonNull(method, "method");
            requireNonNull(target, "target");
            hosts = List.copyOf(hosts);
            transferEncodings = List.copyOf(transferEncodings);
            contentLengths = List.copyOf(contentLengths);
            expectations = List.copyOf(expectations);
        }

        /** A {@code GET} without {@code Expect} (tests, fuzzing). */
        public Head(
                String version,
                String target,
                List<String> hosts,
                List<String> transferEncodings,
                List<String> contentLengths) {
            this(version, "GET", target, hosts, transferEncodings, contentLengths, List.of());
        }
    }

    /** Why a request is refused: the status, the contract's error code and a reason for the client. */
    public record Rejection(int status, String code, String reason) {
        public Rejection {
            requireNonNull(code, "code");
            requireNonNull(reason, "reason");
        }

        /**
         * The rejection for a status an HTTP parser chose itself (Jetty's or Netty's, before the
         * gateway saw the request), with the contract's code and a reason that names no parser.
         */
        public static Rejection forParserStatus(int status) {
            return switch (status) {
                case 413 -> new Rejection(413, "content_too_large", "the request body is larger than allowed");
                case 414 -> new Rejection(414, "uri_too_long", "the request line is longer than allowed");
                case 431 ->
                    new Rejection(431, "headers_too_large", "the request's header fields are larger than allowed");
                // 426 is Jetty's answer to an HTTP/2.0 request line: the gateway speaks HTTP/1.x only
                case 426, 505 ->
                    new Rejection(505, "version_not_supported", "only HTTP/1.0 and HTTP/1.1 are supported");
                case 408 -> new Rejection(408, "request_timeout", "the request was not received in time");
                case 417 ->
                    new Rejection(
                            417,
                            "expectation_failed",
                            "the Expect header field asks for what the gateway does not do (only 100-continue)");
                case 501 -> new Rejection(501, "not_implemented", "the request asks for something not implemented");
                default ->
                    status >= 500
                            ? new Rejection(status, "server_error", "the gateway could not read the request")
                            : new Rejection(
                                    status < 400 ? 400 : status,
                                    "bad_request",
                                    "the request is not valid HTTP/1.1 (RFC 9112)");
            };
        }

        /** The JSON body the client gets. */
        public byte[] errorBody() {
            return ErrorBody.of(status, code, reason);
        }

        /**
         * The whole answer as bytes on the wire, with {@code Connection: close}: for an engine that
         * answers below its HTTP codec (a request head that never arrived whole has no exchange to
         * answer through).
         */
        public byte[] wire() {
            byte[] body = errorBody();
            byte[] head = ("HTTP/1.1 " + status + " " + code.replace('_', ' ') + "\r\nContent-Type: "
                            + ErrorBody.CONTENT_TYPE + "\r\nContent-Length: " + body.length
                            + "\r\nConnection: close\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            byte[] all = java.util.Arrays.copyOf(head, head.length + body.length);
            System.arraycopy(body, 0, all, head.length, body.length);
            return all;
        }
    }

    /**
     * The head's rejection by {@code server.limits}, or empty: a request target longer than {@code
     * max-request-line} ({@code 414}), more header fields than {@code max-headers} ({@code 431}). The
     * header block's size is the parsers' to count, with the same limit ({@code max-header-bytes}).
     */
    public static Optional<Rejection> checkSize(
            int targetLength, int fieldCount, dev.sluice.config.ServerLimits limits) {
        if (targetLength > limits.maxRequestLine()) {
            return Optional.of(Rejection.forParserStatus(414));
        }
        if (fieldCount > limits.maxHeaders()) {
            return Optional.of(new Rejection(
                    431, "headers_too_large", "the request has more than " + limits.maxHeaders() + " header fields"));
        }
        return Optional.empty();
    }

    /** The rejection of a head read from an HTTP/1.x connection, or empty when its framing is sound. */
    public static Optional<Rejection> check(Head head) {
        String version = head.version();
        if (!version.equals("HTTP/1.1") && !version.equals("HTTP/1.0")) {
            return Optional.of(Rejection.forParserStatus(505));
        }
        Optional<Rejection> target = checkTarget(head.target());
        if (target.isPresent()) {
            return target;
        }
        Optional<Rejection> host = checkHost(version, head.hosts());
        if (host.isPresent()) {
            return host;
        }
        Optional<Rejection> form = checkForm(head.method(), head.target(), head.hosts());
        if (form.isPresent()) {
            return form;
        }
        Optional<Rejection> expectation = checkExpectations(head.expectations());
        if (expectation.isPresent()) {
            return expectation;
        }
        Optional<Rejection> length = checkContentLength(head.contentLengths());
        if (length.isPresent() || head.transferEncodings().isEmpty()) {
            return length;
        }
        if (!head.contentLengths().isEmpty()) {
            return bad("Transfer-Encoding and Content-Length together (RFC 9112 6.1)");
        }
        if (version.equals("HTTP/1.0")) {
            return bad("Transfer-Encoding on an HTTP/1.0 request (RFC 9112 6.1)");
        }
        return checkTransferEncoding(head.transferEncodings());
    }

    /**
     * The rejection of the head of an HTTP/2 stream, or empty: its version is the stream's, whatever
     * the engine calls it (Jetty {@code HTTP/2.0}; Netty's translation to HTTP/1.1 objects {@code
     * HTTP/1.1}); its Host, when it has one, comes from {@code :authority}; a DATA frame's END_STREAM
     * ends its body, so a Transfer-Encoding is refused (RFC 9113 section 8.2.2). As over HTTP/1.x,
     * {@code CONNECT} is 400 and so is a target that is not an absolute path ({@code :path} is one,
     * RFC 9113 section 8.3.1; {@code OPTIONS *} is not served); an {@code Expect} other than {@code
     * 100-continue} is 417.
     */
    public static Optional<Rejection> checkStream(Head head) {
        Optional<Rejection> target = checkTarget(head.target());
        if (target.isPresent()) {
            return target;
        }
        Optional<Rejection> host = checkHost("HTTP/2", head.hosts());
        if (host.isPresent()) {
            return host;
        }
        if (head.method().equals("CONNECT")) {
            return connect();
        }
        if (!head.target().startsWith("/")) {
            return bad("the request's :path is not an absolute path (RFC 9113 8.3.1)");
        }
        Optional<Rejection> expectation = checkExpectations(head.expectations());
        if (expectation.isPresent()) {
            return expectation;
        }
        Optional<Rejection> length = checkContentLength(head.contentLengths());
        if (length.isPresent() || head.transferEncodings().isEmpty()) {
            return length;
        }
        return bad("Transfer-Encoding on an HTTP/2 request (RFC 9113 8.2.2)");
    }

    /** {@link #declaredLength}: the head declares no length (it has no Content-Length field). */
    public static final long UNDECLARED = -1;

    /**
     * The body length a request head declares: the one reading of Content-Length, which the head's
     * {@link #check} and {@link #checkStream}, a route's {@link BodyLimit} (through {@code
     * FrontDoor}), a WebSocket upgrade's "no body" and the upstream request's framing ({@link
     * #upstreamBody}) all ask, so that no value is a length to one and an error to another. One
     * field, one decimal number (no sign, no fraction, at most 18 digits: below 2^63) between optional
     * spaces. A list or a second field is refused even when its values are equal: RFC 9110 section
     * 8.6 lets a recipient take {@code 5, 5} for 5 or refuse it, and Jetty's and Netty's HTTP/1.1
     * parsers and Jetty's HTTP/2 decoder refuse it, so every mode does (Netty's HTTP/2 codec passed
     * it on), as {@link ResponseHeadCheck} does for an upstream's.
     *
     * <pre>
     *   (no field)                            UNDECLARED
     *   "5", " 5 ", "05"                      5
     *   "-1", "+5", "5.0", "", "0x5"          not a number of bytes            (400 in check)
     *   19 digits or more                     not a number of bytes            (400 in check)
     *   "1,2", "5, 5", or fields 5 and 5      more than one value              (400 in check)
     * </pre>
     *
     * @param values every Content-Length field value, in order
     * @return the length, or {@link #UNDECLARED}
     * @throws IllegalArgumentException naming what is wrong (a head {@link #check} passed has none)
     */
    public static long declaredLength(List<String> values) {
        if (values.isEmpty()) {
            return UNDECLARED;
        }
        String value = values.getFirst();
        if (values.size() > 1 || value.indexOf(',') >= 0) {
            throw new IllegalArgumentException("Content-Length has more than one value");
        }
        return digits(value, 0, value.length());
    }

    /** The decimal number between optional spaces and tabs in {@code value[from, to)}. */
    private static long digits(String value, int from, int to) {
        while (from < to && isSpace(value.charAt(from))) {
            from++;
        }
        while (to > from && isSpace(value.charAt(to - 1))) {
            to--;
        }
        if (from == to || to - from > 18) {
            throw new IllegalArgumentException("Content-Length is not a number of bytes");
        }
        long length = 0;
        for (int i = from; i < to; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException("Content-Length is not a number of bytes");
            }
            length = length * 10 + (c - '0');
        }
        return length;
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }

    /** {@link #upstreamBody}: the body goes to the upstream in chunked coding, its length unknown. */
    public static final long CHUNKED = -1;

    /**
     * {@link #upstreamBody}: an HTTP/2 stream left open by its HEADERS that declares no length; its
     * first DATA frame, or its end, tells how its body is framed ({@link #firstData}).
     */
    public static final long AT_FIRST_DATA = -2;

    /**
     * The answer to a request whose framing waits for its first DATA frame ({@link #AT_FIRST_DATA})
     * when neither a DATA frame with bytes nor the stream's end has come within {@code
     * server.limits.header-timeout} of its head: until then it is not known whether it has a body, so
     * the head is not whole (as an HTTP/1.1 head that trickles in). Every engine answers it alike.
     */
    public static final Rejection FIRST_DATA_TIMEOUT = Rejection.forParserStatus(408);

    /**
     * How the body of a request that passed {@link #check} or {@link #checkStream} is framed to an
     * HTTP/1.1 upstream: its Content-Length when it declares one (kept, and {@code 0}: no body); on
     * HTTP/1.x {@link #CHUNKED} with a Transfer-Encoding (which {@link #check} left only as {@code
     * chunked}), else no body ({@code 0}); on an HTTP/2 stream, whose body END_STREAM frames (RFC 9113
     * section 8.1), no body when its HEADERS ended it, else {@link #AT_FIRST_DATA}. A stream's
     * Transfer-Encoding is not the client's (RFC 9113 section 8.2.2 forbids it, and the codecs refuse
     * it): it is not asked about.
     *
     * <pre>
     *   Content-Length: n                        n (0: no body)
     *   HTTP/1.x  Transfer-Encoding: chunked     CHUNKED
     *   HTTP/1.x  neither                        0
     *   HTTP/2    HEADERS with END_STREAM        0
     *   HTTP/2    HEADERS without END_STREAM     AT_FIRST_DATA, then firstData
     * </pre>
     *
     * @param stream the request is an HTTP/2 stream
     * @param contentLength its Content-Length, or null
     * @param transferEncoding an HTTP/1.x request has a Transfer-Encoding
     * @param streamEnded an HTTP/2 stream's HEADERS carried END_STREAM
     * @return the length to send, {@link #CHUNKED} or {@link #AT_FIRST_DATA}
     */
    public static long upstreamBody(
            boolean stream, String contentLength, boolean transferEncoding, boolean streamEnded) {
        if (contentLength != null) {
            return declaredLength(List.of(contentLength));
        }
        if (!stream) {
            return transferEncoding ? CHUNKED : 0;
        }
        return streamEnded ? 0 : AT_FIRST_DATA;
    }

    /**
     * The framing of an {@link #AT_FIRST_DATA} stream's body once its first DATA frame arrived: none
     * when that frame is empty and ends the stream (a GET followed by an empty final DATA frame has no
     * body, and gets no chunked coding), else {@link #CHUNKED}, even when the first frame ends the
     * stream: one rule for every body of unknown length, and no engine holds a frame back to learn it.
     * Engines wait past an empty DATA frame that leaves the stream open: it tells nothing yet.
     *
     * @param bytes the first DATA frame's length
     * @param endsStream it carried END_STREAM
     */
    public static long firstData(int bytes, boolean endsStream) {
        return bytes == 0 && endsStream ? 0 : CHUNKED;
    }

    private static Optional<Rejection> checkTarget(String target) {
        int control = controlByteAt(target);
        if (control >= 0) {
            return bad("the request target contains a control byte (0x" + Integer.toHexString(target.charAt(control))
                    + ")");
        }
        if (target.indexOf('#') >= 0) { // as RequestPath refuses it, where a parser has not taken it off first
            return bad("the request target has a '#', which is refused (a fragment is never sent)");
        }
        return Optional.empty();
    }

    /** Where {@code target} has its first space or control byte (0x00-0x20, 0x7F), or -1: no target has one. */
    static int controlByteAt(CharSequence target) {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= 0x20 || c == 0x7F) {
                return i;
            }
        }
        return -1;
    }

    /**
     * How an HTTP/1.x request's target is written (RFC 9112 section 3.2): the gateway serves the
     * origin form ({@code /path?query}) and the absolute form whose authority is the Host field's
     * (what a client sends through a proxy; the route sees its path). It is no forward proxy or
     * tunnel: {@code CONNECT} (the authority form) and the asterisk form ({@code OPTIONS *}) are 400,
     * as nginx answers them, never routed as {@code /}; an absolute form naming another host than Host
     * is 400 (RFC 9112 says to take the target's and ignore Host: refused instead, so that no route
     * and no upstream sees a Host the target contradicts).
     */
    private static Optional<Rejection> checkForm(String method, String target, List<String> hosts) {
        if (method.equals("CONNECT")) {
            return connect();
        }
        if (target.startsWith("/")) {
            return Optional.empty();
        }
        int scheme = target.regionMatches(true, 0, "http://", 0, 7)
                ? 7
                : target.regionMatches(true, 0, "https://", 0, 8) ? 8 : -1;
        if (scheme < 0) {
            return bad("the request target is neither a path nor an absolute URI (RFC 9112 3.2)");
        }
        int end = scheme;
        while (end < target.length() && "/?#".indexOf(target.charAt(end)) < 0) {
            end++;
        }
        String authority = target.substring(scheme, end);
        return hosts.size() == 1 && hosts.getFirst().strip().equalsIgnoreCase(authority)
                ? Optional.empty()
                : bad("the request target's authority is not the Host field's (RFC 9112 3.2.2)");
    }

    private static Optional<Rejection> connect() {
        return bad("CONNECT is not served: the gateway opens no tunnels");
    }

    /**
     * {@code Expect}: only {@code 100-continue} is met (RFC 9110 section 10.1.1); any other
     * expectation is 417, which Jetty's parser answers on its own, so every mode does.
     */
    private static Optional<Rejection> checkExpectations(List<String> values) {
        for (String value : values) {
            for (String element : value.split(",", -1)) {
                if (!element.strip().equalsIgnoreCase("100-continue")) {
                    return Optional.of(Rejection.forParserStatus(417));
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<Rejection> checkHost(String version, List<String> hosts) {
        if (hosts.size() > 1) {
            return bad("more than one Host header field (RFC 9112 3.2)");
        }
        if (hosts.isEmpty()) {
            return version.equals("HTTP/1.1")
                    ? bad("an HTTP/1.1 request without a Host header field (RFC 9112 3.2)")
                    : Optional.empty();
        }
        String host = hosts.getFirst().strip();
        if (host.isEmpty()) { // as nginx and Jetty refuse it: routes and X-Forwarded-Host read the host
            return bad("the Host header field is empty");
        }
        return HostValue.isValid(host)
                ? Optional.empty()
                : bad("the Host header field is not a valid host[:port] (RFC 9112 3.2)");
    }

    private static Optional<Rejection> checkContentLength(List<String> values) {
        try {
            declaredLength(values);
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return bad(e.getMessage());
        }
    }

    private static Optional<Rejection> checkTransferEncoding(List<String> values) {
        List<String> codings = new ArrayList<>();
        for (String value : values) {
            for (String element : value.split(",", -1)) {
                String coding = element.strip().toLowerCase(Locale.ROOT);
                if (!coding.isEmpty()) {
                    codings.add(coding);
                }
            }
        }
        if (codings.isEmpty() || !codings.getLast().equals("chunked")) {
            return bad("Transfer-Encoding does not end in chunked: the body's length is unknown (RFC 9112 6.3)");
        }
        if (codings.indexOf("chunked") != codings.size() - 1) {
            return bad("Transfer-Encoding applies chunked more than once (RFC 9112 6.1)");
        }
        if (codings.size() > 1) {
            return Optional.of(new Rejection(
                    501, "not_implemented", "Transfer-Encoding: no coding but chunked is implemented (RFC 9112 6.1)"));
        }
        return Optional.empty();
    }

    private static Optional<Rejection> bad(String reason) {
        return Optional.of(new Rejection(400, "bad_request", reason));
    }
}
