package dev.sluice.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.lab.run.CpuPlan;
import dev.sluice.lab.run.LoadResult;
import dev.sluice.lab.run.Wrk;
import dev.sluice.lab.run.WrkLoad;
import java.net.URI;
import java.nio.file.Path;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lab's wrk script against the sizes upstream: good responses counted per second, bad sizes and statuses caught. */
class WrkScriptTest {

    @TempDir
    Path dir;

    private Server server;
    private int port;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(Wrk.installed(), "wrk is not installed (apt-get install -y wrk)");
        server = SizesUpstream.start(0);
        port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void exactSizesPassAndEveryResponseIsCounted() throws Exception {
        Wrk wrk = Wrk.prepare(dir, CpuPlan.of(false));
        WrkLoad load = WrkLoad.steady(URI.create("http://127.0.0.1:" + port + "/bytes/1024"), 2, 1, 2, 5, 1024)
                .withExactBytes(1024);
        LoadResult r = wrk.run(load, dir, "ok");
        assertThat(r.good()).isPositive();
        assertThat(r.errors()).isZero();
        assertThat(r.requests()).isEqualTo(r.good());
        // a 2 s run spans at least two wall-clock seconds (more on a loaded machine), none without a response
        assertThat(r.perSecond().size()).isGreaterThanOrEqualTo(2);
        assertThat(r.perSecond().lastKey() - r.perSecond().firstKey() + 1)
                .isEqualTo(r.perSecond().size());
        assertThat(r.latency().millis(50)).hasValueSatisfying(v -> assertThat(v).isPositive());
        assertThat(r.latency().millis(99.9).orElseThrow())
                .isGreaterThanOrEqualTo(r.latency().millis(50).orElseThrow());
    }

    @Test
    void wrongSizesAndStatusesAreErrors() throws Exception {
        Wrk wrk = Wrk.prepare(dir, CpuPlan.of(false));
        LoadResult size = wrk.run(
                WrkLoad.steady(URI.create("http://127.0.0.1:" + port + "/bytes/100"), 1, 1, 1, 5, 0)
                        .withExactBytes(101),
                dir,
                "size");
        assertThat(size.good()).isZero();
        assertThat(size.badSize()).isPositive().isEqualTo(size.errors());
        LoadResult status = wrk.run(
                WrkLoad.steady(URI.create("http://127.0.0.1:" + port + "/nothing"), 1, 1, 1, 5, 0), dir, "status");
        assertThat(status.good()).isZero();
        assertThat(status.badStatuses()).containsOnlyKeys(404);
        assertThat(status.describeErrors()).contains("status 404");
    }
}
