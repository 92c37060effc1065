package dev.sluice.engine.blocking.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.UpstreamConfig;
import org.junit.jupiter.api.Test;

class JdkUpstreamClientTest extends UpstreamClientContract {

    @Override
    protected UpstreamClient newClient(UpstreamConfig config) {
        return new JdkUpstreamClient(config);
    }

    @Test
    void restrictedHeadersAreLeftToTheJdk() throws Exception {
        UpstreamClient client = client();
        String seen = text(
                client,
                get(client, "/inspect")
                        .header("Expect", "100-continue")
                        .header("Connection", "keep-alive")
                        .header("Upgrade", "websocket"));
        assertThat(seen.lines()).contains("host: " + client.config().authority());
        assertThat(seen).doesNotContain("expect:", "upgrade:");
        assertThat(seen.lines())
                .as("documented: the JDK adds its own User-Agent")
                .anyMatch(line -> line.startsWith("user-agent: Java-http-client/"));
    }
}
