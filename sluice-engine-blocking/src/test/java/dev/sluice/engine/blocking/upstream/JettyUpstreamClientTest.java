package dev.sluice.engine.blocking.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.UpstreamConfig;
import java.io.ByteArrayInputStream;
import org.junit.jupiter.api.Test;

class JettyUpstreamClientTest extends UpstreamClientContract {

    @Override
    protected UpstreamClient newClient(UpstreamConfig config) {
        return new JettyUpstreamClient(config);
    }

    @Test
    void nothingIsAddedToTheRequest() throws Exception {
        UpstreamClient client = client();
        String get = text(client, get(client, "/inspect"));
        assertThat(get.lines().skip(1))
                .containsExactly("host: " + client.config().authority());
        UpstreamRequest post = new UpstreamRequest("POST", "/inspect")
                .header("Host", client.config().authority())
                .body(new ByteArrayInputStream(new byte[] {1, 2, 3}), 3);
        String posted = text(client, post);
        assertThat(posted.lines().skip(1))
                .containsExactly("content-length: 3", "host: " + client.config().authority());
    }
}
