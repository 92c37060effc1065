package dev.sluice.tck;

import dev.sluice.config.TranscodeConfig;
import dev.sluice.config.UpstreamProtocol;
import dev.sluice.transcode.TranscodeSchema;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the transcoding groups share ({@link GrpcTranscodeContract}, {@link GrpcCompositionContract}):
 * one real grpc-java {@link ShopService} per group, its {@code grpc-transcode} section, its h2c
 * upstream, and an HTTP/1.1 JSON client's calls.
 */
public abstract class ShopFixture extends ContractFixture {

    /** Room for an h2 session to a live grpc-java service to open on a loaded machine (the default is 1 s). */
    protected static final Duration LIVE_CONNECT = Duration.ofSeconds(10);

    /** The upstream name of the service. */
    protected static final String SHOP = "shop";

    protected ShopService service;

    @TempDir
    Path dir;

    @BeforeAll
    void startService() {
        service = ShopService.start();
    }

    @AfterAll
    void stopService() {
        service.close();
    }

    /** The {@code grpc-transcode} section for {@link ShopService}'s service: {@code method} and {@code max-message}. */
    protected static TranscodeConfig shopTranscode(Optional<String> method, int maxMessage) {
        return new TranscodeConfig(
                Path.of("shop.pb"),
                List.of(ShopService.SERVICE),
                method,
                maxMessage,
                TranscodeSchema.of(ShopService.descriptors(), List.of(ShopService.SERVICE)));
    }

    /** The {@link #SHOP} upstream at {@code url} over h2c, with a connect timeout for a loaded machine. */
    protected static Routes.UpstreamSpec shopUpstream(URI url) {
        return Routes.upstream(SHOP, url).connectTimeout(LIVE_CONNECT).protocol(UpstreamProtocol.H2C);
    }

    /** {@code request} sent over HTTP/1.1 (30 s at most), its body read whole. */
    protected static HttpResponse<String> call(TestGateway gw, HttpRequest.Builder request) throws Exception {
        return gw.http().send(http1(request), HttpResponse.BodyHandlers.ofString());
    }

    /** {@code request} sent over HTTP/1.1 (30 s at most), its body read as it arrives. */
    protected static HttpResponse<InputStream> stream(TestGateway gw, HttpRequest.Builder request) throws Exception {
        return gw.http().send(http1(request), HttpResponse.BodyHandlers.ofInputStream());
    }

    private static HttpRequest http1(HttpRequest.Builder request) {
        return request.version(HttpClient.Version.HTTP_1_1)
                .timeout(Duration.ofSeconds(30))
                .build();
    }
}
