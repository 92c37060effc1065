package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ResponseHeadCheckTest {

    @Test
    void aStatusCodeHasThreeDigits() {
        assertThat(ResponseHeadCheck.statusProblem(2)).contains("three digits");
        assertThat(ResponseHeadCheck.statusProblem(99)).contains("three digits");
        assertThat(ResponseHeadCheck.statusProblem(1000)).contains("three digits");
        assertThat(ResponseHeadCheck.statusProblem(100)).isNull();
        assertThat(ResponseHeadCheck.statusProblem(999)).isNull();
        assertThat(new ResponseHeadCheck().verdict(1, 1, 20)).contains("three digits");
        assertThat(new ResponseHeadCheck().verdict(1, 1, 200)).isNull();
    }

    @Test
    void aContentLengthIsDigitsBetweenOptionalSpacesAndTabs() {
        assertThat(verdictWithLength("16384")).isNull();
        assertThat(verdictWithLength(" \t42\t ")).isNull();
        assertThat(verdictWithLength(new StringBuilder("0"))).isNull(); // any CharSequence, read in place
        assertThat(verdictWithLength("")).contains("expected: a decimal number");
        assertThat(verdictWithLength(" \t ")).contains("expected: a decimal number");
        assertThat(verdictWithLength("4 2")).contains("expected: a decimal number");
        assertThat(verdictWithLength("-1")).contains("expected: a decimal number");
        assertThat(verdictWithLength("0x10")).contains("expected: a decimal number");
        assertThat(verdictWithLength("1234567890123456789")).contains("expected: a decimal number");
        assertThat(verdictWithLength("123456789012345678")).isNull();
        assertThat(verdictWithLength("4, 4")).contains("more than once");
    }

    @Test
    void aSecondContentLengthIsRefusedEvenWhenEqual() {
        ResponseHeadCheck check = new ResponseHeadCheck();
        check.header("Content-Length", "4");
        check.header("content-length", "4");
        assertThat(check.verdict(1, 1, 200)).contains("more than once");
    }

    private static String verdictWithLength(CharSequence value) {
        ResponseHeadCheck check = new ResponseHeadCheck();
        check.header("Content-Length", value);
        return check.verdict(1, 1, 200);
    }

    @Test
    void aResponseToHeadAnInterimOneA204AndA304HaveNoBody() {
        assertThat(ResponseHeadCheck.bodyless(true, 200)).isTrue();
        assertThat(ResponseHeadCheck.bodyless(false, 100)).isTrue();
        assertThat(ResponseHeadCheck.bodyless(false, 204)).isTrue();
        assertThat(ResponseHeadCheck.bodyless(false, 304)).isTrue();
        assertThat(ResponseHeadCheck.bodyless(false, 200)).isFalse();
        assertThat(ResponseHeadCheck.bodyless(false, 206)).isFalse();
        assertThat(ResponseHeadCheck.bodyless(false, 404)).isFalse();
    }

    @Test
    void interimResponsesAreSkippedButAnUnasked101IsRefused() {
        assertThat(ResponseHeadCheck.interim(100)).isTrue();
        assertThat(ResponseHeadCheck.interim(103)).isTrue();
        assertThat(ResponseHeadCheck.interim(199)).isTrue();
        assertThat(ResponseHeadCheck.interim(200)).isFalse();
        assertThat(ResponseHeadCheck.interim(99)).isFalse();
        assertThat(ResponseHeadCheck.interimProblem(100)).isNull();
        assertThat(ResponseHeadCheck.interimProblem(103)).isNull();
        assertThat(ResponseHeadCheck.interimProblem(101)).contains("asked for no upgrade");
        assertThat(new ResponseHeadCheck().verdict(1, 1, 101)).isEqualTo(ResponseHeadCheck.interimProblem(101));
    }

    @Test
    void theConnectionFieldsDecideWhetherTheConnectionIsReused() {
        assertThat(keepsAlive(1)).isTrue();
        assertThat(keepsAlive(1, "close")).isFalse();
        assertThat(keepsAlive(1, "Upgrade, CLOSE")).isFalse();
        assertThat(keepsAlive(1, "keep-alive", " close ")).isFalse(); // a second field counts too
        assertThat(keepsAlive(1, "closed")).isTrue(); // a token, not a prefix
        assertThat(keepsAlive(0)).isFalse(); // HTTP/1.0 closes unless it says keep-alive
        assertThat(keepsAlive(0, "Keep-Alive")).isTrue();
        assertThat(keepsAlive(0, "foo,keep-alive")).isTrue();
        assertThat(keepsAlive(0, "keep-alive, close")).isFalse();
    }

    private static boolean keepsAlive(int minor, String... connection) {
        ResponseHeadCheck check = new ResponseHeadCheck();
        check.header("Content-Type", "text/plain");
        for (String value : connection) {
            check.header("Connection", value);
        }
        assertThat(check.verdict(1, minor, 200)).isNull();
        return check.keepsAlive(minor);
    }

    @Test
    void aBodyIsFramedByNothingThenChunkedThenLengthThenTheClose() {
        ResponseHeadCheck chunked = new ResponseHeadCheck();
        chunked.header("Transfer-Encoding", "chunked");
        assertThat(chunked.framing(false, 200)).isEqualTo(ResponseHeadCheck.Framing.CHUNKED);
        assertThat(chunked.framing(true, 200)).isEqualTo(ResponseHeadCheck.Framing.NONE);
        ResponseHeadCheck length = new ResponseHeadCheck();
        length.header("Content-Length", "7");
        assertThat(length.framing(false, 200)).isEqualTo(ResponseHeadCheck.Framing.LENGTH);
        assertThat(length.contentLength()).isEqualTo(7);
        assertThat(length.framing(false, 304)).isEqualTo(ResponseHeadCheck.Framing.NONE);
        ResponseHeadCheck neither = new ResponseHeadCheck();
        assertThat(neither.framing(false, 200)).isEqualTo(ResponseHeadCheck.Framing.CLOSE);
        assertThat(neither.contentLength()).isEqualTo(-1);
    }

    @Test
    void aConnectionIsReusedWhenItsHeadLetsItAndTheBodyDoesNotEndWithTheClose() {
        ResponseHeadCheck plain = new ResponseHeadCheck();
        assertThat(plain.reusable(1, ResponseHeadCheck.Framing.LENGTH)).isTrue();
        assertThat(plain.reusable(1, ResponseHeadCheck.Framing.CLOSE)).isFalse();
        assertThat(plain.reusable(0, ResponseHeadCheck.Framing.LENGTH)).isFalse();
        ResponseHeadCheck kept = new ResponseHeadCheck();
        kept.header("connection", "Keep-Alive");
        assertThat(kept.reusable(0, ResponseHeadCheck.Framing.LENGTH)).isTrue();
        ResponseHeadCheck closed = new ResponseHeadCheck();
        closed.header("Connection", "x, close");
        assertThat(closed.reusable(1, ResponseHeadCheck.Framing.CHUNKED)).isFalse();
    }
}
