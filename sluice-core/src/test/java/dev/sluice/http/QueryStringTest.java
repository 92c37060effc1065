package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class QueryStringTest {

    @Test
    void theFirstValueOfAParameterDecoded() {
        assertThat(QueryString.first("a=1&key=x%20y&key=z", "key")).isEqualTo("x y");
        assertThat(QueryString.first("a=1&flag", "flag")).isEmpty();
        assertThat(QueryString.first("a=1", "key")).isNull();
        assertThat(QueryString.first(null, "key")).isNull();
        assertThat(QueryString.first("k%65y=v", "key")).isEqualTo("v");
    }

    @Test
    void withoutDropsEveryCopyAndKeepsTheRestAsSent() {
        assertThat(QueryString.without("a=%2F&key=1&b=2&key=3", Set.of("key"))).isEqualTo("a=%2F&b=2");
        assertThat(QueryString.without("key=1", Set.of("key"))).isNull();
        assertThat(QueryString.without("a=1&&b", Set.of("key"))).isEqualTo("a=1&b");
    }

    @Test
    void parametersAreDecodedFirstValueWinsAndMalformedEscapesStayRaw() {
        var p = QueryString.parameters("id=7&id=8&name=a+b%21&flag&bad=%zz&k%65y=v&&");
        assertThat(p.get("id")).isEqualTo("7");
        assertThat(p.get("name")).isEqualTo("a b!");
        assertThat(p.get("flag")).isEmpty();
        assertThat(p.get("bad")).isEqualTo("%zz");
        assertThat(p.get("key")).isEqualTo("v");
        assertThat(p.get("missing")).isNull();
        assertThat(p).hasSize(5);
        assertThat(QueryString.parameters(null)).isEmpty();
        assertThat(QueryString.parameters("")).isEmpty();
    }
}
