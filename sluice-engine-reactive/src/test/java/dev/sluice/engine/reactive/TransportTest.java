package dev.sluice.engine.reactive;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.EngineMode;
import dev.sluice.config.Transport;
import dev.sluice.tck.ContractFixture;
import dev.sluice.tck.TestGateway;
import io.netty.channel.uring.IoUring;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code server.transport}: which event loops the reactive engine really runs on. */
@ExtendWith(LeakGuard.class)
class TransportTest extends ContractFixture {

    @Override
    protected EngineMode mode() {
        return EngineMode.REACTIVE;
    }

    /** The transport the gateway reports, after one proxied request went through it. */
    private String runOn(Transport transport) {
        try (TestGateway gateway = gateway()
                .transport(transport)
                .route("any", on("/**"), proxy(APP))
                .start()) {
            HttpResponse<byte[]> response = get(gateway, "/bytes/100");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).hasSize(100);
            return gateway.transport();
        }
    }

    @Test
    void autoIsIoUringWhereTheKernelAllowsItAndNioElsewhere() {
        assertThat(runOn(Transport.AUTO)).isEqualTo(IoUring.isAvailable() ? "io_uring" : "nio");
    }

    @Test
    void nioIsNio() {
        assertThat(runOn(Transport.NIO)).isEqualTo("nio");
    }

    @Test
    void ioUringIsIoUringWhereTheKernelAllowsIt() {
        if (IoUring.isAvailable()) {
            assertThat(runOn(Transport.IO_URING)).isEqualTo("io_uring");
        } else {
            assertThatThrownBy(() -> runOn(Transport.IO_URING))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("server.transport: io_uring is not available here (")
                    .hasMessageEndingWith(") (expected: auto or nio)");
        }
    }
}
