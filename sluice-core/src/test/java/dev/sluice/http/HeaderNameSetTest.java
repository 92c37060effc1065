package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HeaderNameSetTest {

    @Test
    void namesAreFoundInAnyAsciiCaseAndAnyCharSequence() {
        HeaderNameSet set = new HeaderNameSet(List.of("Transfer-Encoding", "te", "x-api-key"));
        assertThat(set.contains("transfer-encoding")).isTrue();
        assertThat(set.contains("TRANSFER-ENCODING")).isTrue();
        assertThat(set.contains(new StringBuilder("Te"))).isTrue();
        assertThat(set.contains("X-Api-Key")).isTrue();
        assertThat(set.contains("transfer-encodin")).isFalse();
        assertThat(set.contains("t")).isFalse();
        assertThat(set.contains("")).isFalse();
        assertThat(set.contains("x_api_key")).as("- and _ are different names").isFalse();
    }

    @Test
    void onlyAsciiLettersFold() {
        HeaderNameSet set = new HeaderNameSet(List.of("keep-alive"));
        assertThat(set.contains("\u212Aeep-alive"))
                .as("the Kelvin sign is not a K")
                .isFalse();
        assertThat(HeaderNameSet.equalsIgnoreCase("[", "{")).isFalse(); // '[' + 32 is '{'
        assertThat(HeaderNameSet.equalsIgnoreCase("@", "`")).isFalse();
    }

    @Test
    void aFullTableStillFindsEveryName() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            names.add("x-name-" + i);
        }
        HeaderNameSet set = new HeaderNameSet(names);
        for (String name : names) {
            assertThat(set.contains(name.toUpperCase())).as(name).isTrue();
        }
        assertThat(set.contains("x-name-200")).isFalse();
        assertThat(new HeaderNameSet(List.of()).contains("a")).isFalse();
    }

    @Test
    void connectionTokensAreReadInPlace() {
        assertThat(HopByHop.listed("X-Trace", "keep-alive, x-trace")).isTrue();
        assertThat(HopByHop.listed("x-trace", " X-TRACE ,close")).isTrue();
        assertThat(HopByHop.listed("x-trace", "x-tracer, a-x-trace")).isFalse();
        assertThat(HopByHop.listed("x", ",,")).isFalse();
        assertThat(HopByHop.listed("x", "x,")).isTrue();
        assertThat(HopByHop.listed("x", null)).isFalse();
    }
}
