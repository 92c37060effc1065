package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RequestFramingTest {

    private static RequestFraming.Head head(String version, List<String> hosts, List<String> te, List<String> cl) {
        return new RequestFraming.Head(version, "/a?b=c", hosts, te, cl);
    }

    private static Optional<RequestFraming.Rejection> check(List<String> hosts, List<String> te, List<String> cl) {
        return RequestFraming.check(head("HTTP/1.1", hosts, te, cl));
    }

    private static void assertRejected(Optional<RequestFraming.Rejection> verdict, int status, String code) {
        assertThat(verdict).hasValueSatisfying(r -> {
            assertThat(r.status()).isEqualTo(status);
            assertThat(r.code()).isEqualTo(code);
            assertThat(new String(r.errorBody(), java.nio.charset.StandardCharsets.UTF_8))
                    .startsWith("{\"status\":" + status + ",\"error\":\"" + code + "\"");
        });
    }

    @Test
    void aPlainHeadPasses() {
        assertThat(check(List.of("example.com:8080"), List.of(), List.of("5"))).isEmpty();
        assertThat(check(List.of("[::1]:80"), List.of("chunked"), List.of())).isEmpty();
        assertThat(check(List.of("h"), List.of("Chunked"), List.of())).isEmpty();
    }

    private static Optional<RequestFraming.Rejection> request(String method, String target, List<String> hosts) {
        return request(method, target, hosts, List.of());
    }

    private static Optional<RequestFraming.Rejection> request(
            String method, String target, List<String> hosts, List<String> expectations) {
        return RequestFraming.check(
                new RequestFraming.Head("HTTP/1.1", method, target, hosts, List.of(), List.of(), expectations));
    }

    @Test
    void anEmptyHostIsRefused() {
        assertRejected(check(List.of(""), List.of(), List.of()), 400, "bad_request");
        assertRejected(check(List.of("  "), List.of(), List.of()), 400, "bad_request");
    }

    @Test
    void onlyThePathFormAndAnAbsoluteFormNamingTheHostAreServed() {
        assertThat(request("GET", "/a?b", List.of("h"))).isEmpty();
        assertThat(request("GET", "//a", List.of("h")))
                .as("a path beginning with two slashes")
                .isEmpty();
        assertThat(request("GET", "http://h/a?b", List.of("h"))).isEmpty();
        assertThat(request("GET", "HTTPS://H:8443", List.of("h:8443"))).isEmpty();
        assertThat(request("GET", "http://h?x", List.of("h"))).isEmpty();
        assertRejected(request("GET", "http://evil.example/a", List.of("h")), 400, "bad_request");
        assertRejected(request("GET", "http://h:80/a", List.of("h")), 400, "bad_request");
        assertRejected(request("GET", "http://h/a", List.of()), 400, "bad_request");
        assertRejected(request("GET", "*", List.of("h")), 400, "bad_request");
        assertRejected(request("OPTIONS", "*", List.of("h")), 400, "bad_request");
        assertRejected(request("CONNECT", "h:443", List.of("h:443")), 400, "bad_request");
        assertRejected(request("CONNECT", "/a", List.of("h")), 400, "bad_request");
        assertRejected(request("GET", "a/b", List.of("h")), 400, "bad_request");
        assertRejected(request("GET", "ftp://h/a", List.of("h")), 400, "bad_request");
    }

    @Test
    void aFragmentIsRefusedWhereverItIs() {
        assertRejected(request("GET", "/a#f", List.of("h")), 400, "bad_request");
        assertRejected(request("GET", "/a?x=1#f", List.of("h")), 400, "bad_request");
        assertRejected(request("GET", "http://h/a#f", List.of("h")), 400, "bad_request");
        assertRejected(
                RequestFraming.checkStream(
                        new RequestFraming.Head("HTTP/2.0", "/a#f", List.of("h"), List.of(), List.of())),
                400,
                "bad_request");
    }

    @Test
    void onlyTheHundredContinueExpectationIsMet() {
        assertThat(request("POST", "/a", List.of("h"), List.of("100-continue"))).isEmpty();
        assertThat(request("POST", "/a", List.of("h"), List.of(" 100-Continue ")))
                .isEmpty();
        assertRejected(request("POST", "/a", List.of("h"), List.of("bogus")), 417, "expectation_failed");
        assertRejected(request("POST", "/a", List.of("h"), List.of("100-continue, x")), 417, "expectation_failed");
        assertRejected(request("POST", "/a", List.of("h"), List.of("")), 417, "expectation_failed");
    }

    @Test
    void aListOfLengthsIsRefusedEvenWhenItsValuesAreEqual() {
        assertRejected(check(List.of("h"), List.of(), List.of("5, 5")), 400, "bad_request");
        assertRejected(check(List.of("h"), List.of(), List.of("5", "5")), 400, "bad_request");
    }

    @Test
    void hostIsRequiredOnceAndValidOnHttp11() {
        assertRejected(check(List.of(), List.of(), List.of()), 400, "bad_request");
        assertRejected(check(List.of("a", "b"), List.of(), List.of()), 400, "bad_request");
        assertRejected(check(List.of("a b"), List.of(), List.of()), 400, "bad_request");
        assertRejected(check(List.of("a/b"), List.of(), List.of()), 400, "bad_request");
        assertRejected(check(List.of("a:8x"), List.of(), List.of()), 400, "bad_request");
        assertRejected(check(List.of("[::1"), List.of(), List.of()), 400, "bad_request");
        assertThat(RequestFraming.check(head("HTTP/1.0", List.of(), List.of(), List.of())))
                .isEmpty();
        assertRejected(
                RequestFraming.check(head("HTTP/1.0", List.of("a", "b"), List.of(), List.of())), 400, "bad_request");
    }

    @Test
    void controlBytesInTheTargetAreRefused() {
        for (String target : List.of("/a\u0000b", "/a\u007f", "/a?q=\u0001", "/a b")) {
            assertRejected(
                    RequestFraming.check(
                            new RequestFraming.Head("HTTP/1.1", target, List.of("h"), List.of(), List.of())),
                    400,
                    "bad_request");
        }
    }

    @Test
    void onlyHttp1xIsSupportedOnAnHttp1Connection() {
        for (String version : List.of("HTTP/2.0", "HTTP/3.1", "HTTP/1.2", "HTTP/0.9")) {
            assertRejected(
                    RequestFraming.check(head(version, List.of("h"), List.of(), List.of())),
                    505,
                    "version_not_supported");
        }
    }

    @Test
    void anHttp2StreamNeedsNoHostAndHasNoTransferEncoding() {
        assertThat(RequestFraming.checkStream(head("HTTP/2.0", List.of(), List.of(), List.of("5"))))
                .as(":authority stands for Host")
                .isEmpty();
        assertRejected(
                RequestFraming.checkStream(head("HTTP/2.0", List.of("h"), List.of("chunked"), List.of())),
                400,
                "bad_request");
        assertRejected(
                RequestFraming.checkStream(head("HTTP/2.0", List.of("h"), List.of(), List.of("1", "2"))),
                400,
                "bad_request");
    }

    @Test
    void anHttp2StreamIsServedByItsAbsolutePathAsAnHttp1RequestIs() {
        assertThat(stream("GET", "/a?b=c", List.of())).isEmpty();
        assertThat(stream("POST", "/a", List.of("100-continue"))).isEmpty();
        assertRejected(stream("CONNECT", "", List.of()), 400, "bad_request");
        assertRejected(stream("CONNECT", "/a", List.of()), 400, "bad_request");
        assertRejected(stream("OPTIONS", "*", List.of()), 400, "bad_request");
        assertRejected(stream("GET", "http://h/a", List.of()), 400, "bad_request");
        assertRejected(stream("GET", "a/b", List.of()), 400, "bad_request");
        assertRejected(stream("GET", "/a", List.of("bogus")), 417, "expectation_failed");
    }

    private static Optional<RequestFraming.Rejection> stream(String method, String target, List<String> expect) {
        return RequestFraming.checkStream(
                new RequestFraming.Head("HTTP/2.0", method, target, List.of("h"), List.of(), List.of(), expect));
    }

    @Test
    void contentLengthMustBeOneNumber() {
        for (List<String> cl : List.of(
                List.of("abc"),
                List.of("-1"),
                List.of("5", "6"),
                List.of("5, 6"),
                List.of(""),
                List.of("99999999999999999999"))) {
            assertRejected(check(List.of("h"), List.of(), cl), 400, "bad_request");
        }
    }

    @Test
    void transferEncodingMustEndInOneChunkedAndNameNoOtherCoding() {
        assertRejected(check(List.of("h"), List.of("identity, chunked"), List.of()), 501, "not_implemented");
        assertRejected(check(List.of("h"), List.of("gzip", "chunked"), List.of()), 501, "not_implemented");
        assertRejected(check(List.of("h"), List.of("gzip"), List.of()), 400, "bad_request");
        assertRejected(check(List.of("h"), List.of("chunked, gzip"), List.of()), 400, "bad_request");
        assertRejected(check(List.of("h"), List.of("chunked, chunked"), List.of()), 400, "bad_request");
        assertRejected(check(List.of("h"), List.of(""), List.of()), 400, "bad_request");
        assertRejected(check(List.of("h"), List.of("chunked"), List.of("5")), 400, "bad_request");
        assertRejected(
                RequestFraming.check(head("HTTP/1.0", List.of(), List.of("chunked"), List.of())), 400, "bad_request");
    }

    @Test
    void aDeclaredLengthIsKeptUpstreamWhateverTheProtocol() {
        assertThat(RequestFraming.upstreamBody(false, "42", false, false)).isEqualTo(42);
        assertThat(RequestFraming.upstreamBody(true, " 7 ", false, false)).isEqualTo(7);
        assertThat(RequestFraming.upstreamBody(true, "0", false, false)).isZero();
    }

    @Test
    void anHttp1BodyWithoutLengthIsChunkedWhenItHasATransferEncodingAndAbsentOtherwise() {
        assertThat(RequestFraming.upstreamBody(false, null, true, false)).isEqualTo(RequestFraming.CHUNKED);
        assertThat(RequestFraming.upstreamBody(false, null, false, false)).isZero();
    }

    @Test
    void anHttp2BodyWithoutLengthIsFramedByItsStreamsEnd() {
        assertThat(RequestFraming.upstreamBody(true, null, false, true))
                .as("HEADERS with END_STREAM: no body")
                .isZero();
        assertThat(RequestFraming.upstreamBody(true, null, false, false)).isEqualTo(RequestFraming.AT_FIRST_DATA);
        assertThat(RequestFraming.upstreamBody(true, null, true, false))
                .as("a stream's Transfer-Encoding is a codec's, not the client's")
                .isEqualTo(RequestFraming.AT_FIRST_DATA);
        assertThat(RequestFraming.firstData(0, true))
                .as("only an empty final DATA frame")
                .isZero();
        assertThat(RequestFraming.firstData(10, true)).isEqualTo(RequestFraming.CHUNKED);
        assertThat(RequestFraming.firstData(10, false)).isEqualTo(RequestFraming.CHUNKED);
        assertThat(RequestFraming.firstData(0, false)).isEqualTo(RequestFraming.CHUNKED);
    }

    @Test
    void parserStatusesMapToTheContractsCodes() {
        assertThat(RequestFraming.Rejection.forParserStatus(431).code()).isEqualTo("headers_too_large");
        assertThat(RequestFraming.Rejection.forParserStatus(414).code()).isEqualTo("uri_too_long");
        assertThat(RequestFraming.Rejection.forParserStatus(413).code()).isEqualTo("content_too_large");
        assertThat(RequestFraming.Rejection.forParserStatus(426).status()).isEqualTo(505);
        assertThat(RequestFraming.Rejection.forParserStatus(400).code()).isEqualTo("bad_request");
    }

    @Test
    void aDeclaredLengthIsReadByOneRule() {
        assertThat(RequestFraming.declaredLength(List.of())).isEqualTo(RequestFraming.UNDECLARED);
        for (String five : new String[] {"5", " 5 ", "\t5", "05"}) {
            assertThat(RequestFraming.declaredLength(List.of(five)))
                    .as("'%s'", five)
                    .isEqualTo(5);
        }
        assertThat(RequestFraming.declaredLength(List.of("999999999999999999"))).isEqualTo(999_999_999_999_999_999L);
        for (String bad :
                new String[] {"-1", "+5", "5.0", "", " ", "0x5", "5,", "1,2", "5, 5", "9999999999999999999"}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> RequestFraming.declaredLength(List.of(bad)))
                    .as("'%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("Content-Length");
        }
        for (List<String> two : List.of(List.of("5", "6"), List.of("5", "5"))) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> RequestFraming.declaredLength(two))
                    .hasMessage("Content-Length has more than one value");
        }
    }
}
