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
}
