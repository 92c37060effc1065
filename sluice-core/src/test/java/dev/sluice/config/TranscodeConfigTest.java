package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.transcode.ShopDescriptors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TranscodeConfigTest {

    private static final String AT = "routes[0].proxy.grpc-transcode";

    @TempDir
    Path dir;

    private final List<Problem> problems = new ArrayList<>();

    private Optional<TranscodeConfig> bind(Map<String, Object> section) {
        return new TranscodeBinder(dir, problems).transcode(section, AT);
    }

    @Test
    void aDescriptorSetAndItsServicesBindRelativeToTheConfigurationsDirectory() throws Exception {
        Files.write(dir.resolve("shop.pb"), ShopDescriptors.set().toByteArray());
        TranscodeConfig config = bind(Map.of(
                        "descriptors", "shop.pb",
                        "services", List.of("shop.Shop"),
                        "method", "shop.Shop/GetBook",
                        "max-message", "64KiB"))
                .orElseThrow();
        assertThat(problems).isEmpty();
        assertThat(config.descriptors()).isEqualTo(dir.resolve("shop.pb"));
        assertThat(config.maxMessage()).isEqualTo(64 * 1024);
        assertThat(config.schema().bindings()).hasSize(3);
        assertThat(bind(Map.of("descriptors", "shop.pb", "services", List.of("shop.Shop")))
                        .orElseThrow()
                        .maxMessage())
                .isEqualTo(TranscodeConfig.DEFAULT_MAX_MESSAGE);
    }

    @Test
    void checkRefusesEachMistakeByPath() throws Exception {
        Files.write(dir.resolve("shop.pb"), ShopDescriptors.set().toByteArray());
        Files.write(dir.resolve("corrupt.pb"), new byte[] {0x0a, 0x7f, 1});
        Files.write(
                dir.resolve("bad-template.pb"),
                ShopDescriptors.set("/v1/{shelf").toByteArray());
        assertRefused(
                Map.of("descriptors", "missing.pb", "services", List.of("shop.Shop")), ".descriptors", "cannot read");
        assertRefused(
                Map.of("descriptors", "corrupt.pb", "services", List.of("shop.Shop")),
                ".descriptors",
                "not a descriptor set");
        assertRefused(
                Map.of("descriptors", "shop.pb", "services", List.of("shop.Nope")), ".services", "unknown service");
        assertRefused(
                Map.of("descriptors", "bad-template.pb", "services", List.of("shop.Shop")), ".descriptors", "unclosed");
        assertRefused(
                Map.of("descriptors", "shop.pb", "services", List.of("shop.Shop"), "method", "shop.Shop/Nope"),
                ".method",
                "not a method");
        assertRefused(Map.of("descriptors", "shop.pb", "services", List.of(7)), ".services[0]", "7");
        assertRefused(Map.of("services", List.of("shop.Shop")), ".descriptors", "missing");
        assertRefused(Map.of("descriptors", "shop.pb", "services", List.of("shop.Shop"), "colour", 1), ".colour", "");
    }

    private void assertRefused(Map<String, Object> section, String at, String reason) {
        problems.clear();
        assertThat(bind(section)).as(section.toString()).isEmpty();
        assertThat(problems).as(section.toString()).anySatisfy(p -> {
            assertThat(p.path()).isEqualTo(AT + at);
            assertThat(p.message()).contains(reason);
        });
    }

    private List<Problem> check(String engine, String protocol, String beside) throws Exception {
        Files.write(dir.resolve("shop.pb"), ShopDescriptors.set().toByteArray());
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, """
                server: { port: 0, engine: %s }
                upstreams:
                  shop: { url: "http://127.0.0.1:9", protocol: %s }
                routes:
                  - id: shop
                    match: { path: "/v1/**" }
                    proxy:
                      upstream: shop
                      grpc-transcode: { descriptors: shop.pb, services: [shop.Shop] }
                %s
                """.formatted(engine, protocol, beside.indent(6)));
        return ConfigLoader.check(file);
    }

    @Test
    void aRouteTakesGrpcTranscodeToAnH2UpstreamInEveryEngine() throws Exception {
        assertThat(check("virtual", "h2c", "")).isEmpty();
        assertThat(check("platform", "h2c", "")).isEmpty();
        assertThat(check("reactive", "h2c", "")).isEmpty();
        GatewayConfig config = ConfigLoader.load(dir.resolve("sluice.yaml"));
        ProxyTarget target = (ProxyTarget) config.routes().getFirst().target();
        assertThat(target.transcode().orElseThrow().services()).containsExactly("shop.Shop");
        assertThat(check("virtual", "http/1.1", ""))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.upstream");
        assertThat(check("virtual", "h2c", "strip-prefix: /v1"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.strip-prefix");
    }

    /** The descriptor file is read with every load, so a reload picks up a new one. */
    @Test
    void eachLoadReadsTheDescriptorFileAgain() throws Exception {
        check("virtual", "h2c", "");
        Path file = dir.resolve("sluice.yaml");
        TranscodeConfig before = ((ProxyTarget)
                        ConfigLoader.load(file).routes().getFirst().target())
                .transcode()
                .orElseThrow();
        assertThat(before.schema().match("GET", "/v2/shelves/s/books/1")).isEmpty();
        Files.write(
                dir.resolve("shop.pb"),
                ShopDescriptors.set("/v2/shelves/{shelf}/books/{id}").toByteArray());
        TranscodeConfig after = ((ProxyTarget)
                        ConfigLoader.load(file).routes().getFirst().target())
                .transcode()
                .orElseThrow();
        assertThat(after.schema().match("GET", "/v2/shelves/s/books/1")).isPresent();
    }

    private List<Problem> checkPart(String protocol, String part) throws Exception {
        Files.write(dir.resolve("shop.pb"), ShopDescriptors.set().toByteArray());
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, """
                server: { port: 0, engine: virtual }
                upstreams:
                  shop: { url: "http://127.0.0.1:9", protocol: %s }
                  json: { url: "http://127.0.0.1:9" }
                routes:
                  - id: page
                    match: { path: "/page/{id}" }
                    compose:
                      parts:
                        info: { upstream: json, path: "/info/{id}" }
                        book:
                          upstream: shop
                          path: "/v1/shelves/s/books/{id}"
                %s
                """.formatted(protocol, part.indent(10)));
        return ConfigLoader.check(file);
    }

    @Test
    void aCompositionPartTakesGrpcTranscodeToAnH2UpstreamAndCheckRefusesItsMistakesByPath() throws Exception {
        String section = "grpc-transcode: { descriptors: shop.pb, services: [shop.Shop] }";
        assertThat(checkPart("h2c", section)).isEmpty();
        ComposeTarget target = (ComposeTarget) ConfigLoader.load(dir.resolve("sluice.yaml"))
                .routes()
                .getFirst()
                .target();
        assertThat(target.parts().get(1).grpc().orElseThrow().services()).containsExactly("shop.Shop");
        assertThat(target.parts().get(0).grpc()).isEmpty();
        String at = "routes[0].compose.parts.book";
        assertThat(checkPart("http/1.1", section)).extracting(Problem::path).containsExactly(at + ".upstream");
        assertThat(checkPart(
                        "h2c",
                        "grpc-transcode: { descriptors: shop.pb, services: [shop.Shop], method: shop.Shop/Nope }"))
                .extracting(Problem::path)
                .containsExactly(at + ".grpc-transcode.method");
        assertThat(checkPart("h2c", "grpc-transcode: { descriptors: nope.pb, services: [shop.Shop] }"))
                .extracting(Problem::path)
                .containsExactly(at + ".grpc-transcode.descriptors");
        assertThat(checkPart("h2c", section + "\nselect: [id]"))
                .extracting(Problem::path)
                .containsExactly(at + ".select");
    }
}
