package dev.sluice.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void readsObjectsInWireOrder() {
        Map<String, Object> json =
                Json.object("{\"b\":1,\"a\":[true,null,\"x\\\"y\"],\"c\":{\"d\":-1.5e3}}".getBytes());
        assertThat(json.keySet()).containsExactly("b", "a", "c");
        assertThat(json.get("a")).isEqualTo(List.of(true, Json.NULL, "x\"y"));
        assertThat(Json.at(json, "c", "d")).isEqualTo(new BigDecimal("-1.5e3"));
    }

    @Test
    void refusesWhatIsNotExactlyOneValue() {
        for (String bad :
                new String[] {"", "{", "{\"a\":}", "[1,]", "{\"a\":1}x", "\"open", "01", "{\"a\":1,\"a\":2}", "nul"}) {
            assertThatThrownBy(() -> Json.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
