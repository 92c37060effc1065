package dev.sluice.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UpstreamEditsTest {

    @Test
    void aValueWithACrLfOrNulIsRefusedWithoutQuotingIt() {
        for (String value : List.of("a\r\nX-Injected: 1", "a\nb", "a\u0000b", "a\u007fb")) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> UpstreamEdits.of(Map.of("X-Tenant", value), List.of(), List.of()))
                    .withMessageContaining("X-Tenant")
                    .withMessageNotContaining("Injected");
        }
    }

    @Test
    void aNameThatIsNotATokenIsRefused() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> UpstreamEdits.of(Map.of("X-A\r\nX-B", "v"), List.of(), List.of()));
        assertThatIllegalArgumentException().isThrownBy(() -> UpstreamEdits.of(Map.of("", "v"), List.of(), List.of()));
    }

    @Test
    void aTabAndVisibleTextPass() {
        UpstreamEdits edits = UpstreamEdits.of(Map.of("X-Tenant", "shop\tone ü"), List.of("Cookie"), List.of());
        assertThat(edits.set()).containsEntry("X-Tenant", "shop\tone ü");
        assertThat(edits.removes("x-tenant")).isTrue();
        assertThat(edits.removes("cookie")).isTrue();
    }
}
