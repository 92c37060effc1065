package dev.sluice.transcode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.DynamicMessage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TranscodeTest {

    private final TranscodeSchema schema = TranscodeSchema.of(ShopDescriptors.set(), List.of("shop.Shop"));

    @Test
    void templatesBindVariablesAndRefuseWhatDoesNotMatch() {
        HttpTemplate t = HttpTemplate.parse("/v1/{name=shelves/*}/books/{book.id}:publish");
        assertThat(t.variables()).containsExactly("name", "book.id");
        assertThat(t.match("/v1/shelves/a%20b/books/7:publish"))
                .contains(Map.of("name", "shelves/a b", "book.id", "7"));
        assertThat(t.match("/v1/shelves/a/books/7")).isEmpty();
        assertThat(t.match("/v1/shelves/a/b/books/7:publish")).isEmpty();
        assertThat(HttpTemplate.parse("/files/{path=**}").match("/files/a/b%2Fc"))
                .contains(Map.of("path", "a/b%2Fc"));
        assertThat(HttpTemplate.parse("/x/{id}").match("/x/a%2Fb")).contains(Map.of("id", "a/b"));
        for (String bad : List.of("v1/x", "/v1/{x", "/v1/**/x", "/v1//x", "/v1/{1x}", "/v1/x/")) {
            assertThatThrownBy(() -> HttpTemplate.parse(bad)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aGetBindsPathAndQueryVariablesIntoTheRequestMessage() throws Exception {
        TranscodeSchema.Match match =
                schema.match("GET", "/v1/shelves/fiction/books/42").orElseThrow();
        assertThat(match.binding().grpcPath()).isEqualTo("/shop.Shop/GetBook");
        byte[] frame = TranscodeRequest.build(match, "lang=en%20GB", new byte[0]);
        assertThat(frame[0]).isZero();
        assertThat(ByteBuffer.wrap(frame, 1, 4).getInt()).isEqualTo(frame.length - 5);
        DynamicMessage request = DynamicMessage.parseFrom(
                match.binding().method().getInputType(), Arrays.copyOfRange(frame, 5, frame.length));
        assertThat(request.toString())
                .contains("shelf: \"fiction\"")
                .contains("id: 42")
                .contains("lang: \"en GB\"");
    }

    @Test
    void aPostPutsTheBodyIntoItsFieldAndRefusesBadJsonAndUnknownQueryParameters() throws Exception {
        TranscodeSchema.Match match =
                schema.match("POST", "/v1/shelves/s1/books").orElseThrow();
        byte[] frame = TranscodeRequest.build(
                match, null, "{\"title\":\"Dune\",\"tags\":[\"sf\"]}".getBytes(StandardCharsets.UTF_8));
        DynamicMessage request = DynamicMessage.parseFrom(
                match.binding().method().getInputType(), Arrays.copyOfRange(frame, 5, frame.length));
        assertThat(request.toString())
                .contains("shelf: \"s1\"")
                .contains("title: \"Dune\"")
                .contains("\"sf\"");

        for (String bad : List.of("{\"title\":", "{\"nope\":1}", "[1]", "{\"id\":\"x\"}")) {
            assertThatThrownBy(() -> TranscodeRequest.build(match, null, bad.getBytes(StandardCharsets.UTF_8)))
                    .isInstanceOfSatisfying(TranscodeException.class, e -> {
                        assertThat(e.httpStatus()).isEqualTo(400);
                        assertThat(e.getMessage()).startsWith("bad JSON body");
                    });
        }
        TranscodeSchema.Match get =
                schema.match("GET", "/v1/shelves/s1/books/1").orElseThrow();
        assertThatThrownBy(() -> TranscodeRequest.build(get, "colour=red", new byte[0]))
                .isInstanceOfSatisfying(
                        TranscodeException.class,
                        e -> assertThat(e.httpStatus()).isEqualTo(400));
        assertThatThrownBy(() -> TranscodeRequest.build(get, "lang=en", "{}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOfSatisfying(
                        TranscodeException.class,
                        e -> assertThat(e.httpStatus()).isEqualTo(400));
        assertThat(schema.match("GET", "/v1/shelves/s1/books/x")).isPresent();
        assertThatThrownBy(() -> TranscodeRequest.build(
                        schema.match("GET", "/v1/shelves/s1/books/x").orElseThrow(), null, new byte[0]))
                .isInstanceOfSatisfying(
                        TranscodeException.class,
                        e -> assertThat(e.getMessage()).contains("not a int64"));
    }

    @Test
    void framesAreReadAcrossChunksAndAnOversizedMessageIsRefusedBeforeItIsBuffered() throws Exception {
        GrpcFrames frames = new GrpcFrames(100);
        byte[] a = TranscodeRequest.frame("hello".getBytes(StandardCharsets.UTF_8));
        byte[] b = TranscodeRequest.frame(new byte[0]);
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        assertThat(frames.feed(ByteBuffer.wrap(both, 0, 3))).isEmpty();
        assertThat(frames.atBoundary()).isFalse();
        List<byte[]> done = frames.feed(ByteBuffer.wrap(both, 3, both.length - 3));
        assertThat(done).hasSize(2);
        assertThat(new String(done.get(0), StandardCharsets.UTF_8)).isEqualTo("hello");
        assertThat(frames.atBoundary()).isTrue();
        byte[] huge = {0, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        assertThatThrownBy(() -> new GrpcFrames(100).feed(ByteBuffer.wrap(huge)))
                .isInstanceOfSatisfying(
                        TranscodeException.class,
                        e -> assertThat(e.httpStatus()).isEqualTo(429));
    }

    @Test
    void responsesAreFramedPerDeliveryAndErrorsMappedAsEnvoyMapsThem() throws Exception {
        var list = schema.match("GET", "/v1/shelves/s/books")
                .orElseThrow()
                .binding()
                .method();
        var book = DynamicMessage.newBuilder(list.getOutputType())
                .setField(list.getOutputType().findFieldByName("id"), 7L)
                .build()
                .toByteArray();
        TranscodeAnswer array = TranscodeAnswer.of(list, "*/*");
        assertThat(array.delivery()).isEqualTo(TranscodeAnswer.Delivery.ARRAY);
        String out = new String(array.message(book), StandardCharsets.UTF_8)
                + new String(array.message(book), StandardCharsets.UTF_8)
                + new String(array.end(), StandardCharsets.UTF_8);
        assertThat(out).isEqualTo("[{\"id\":\"7\"},{\"id\":\"7\"}]");
        assertThat(new String(TranscodeAnswer.of(list, null).end(), StandardCharsets.UTF_8))
                .isEqualTo("[]");
        TranscodeAnswer nd = TranscodeAnswer.of(list, "application/x-ndjson");
        assertThat(new String(nd.message(book), StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"7\"}\n");
        TranscodeAnswer sse = TranscodeAnswer.of(list, "text/event-stream");
        assertThat(new String(sse.message(book), StandardCharsets.UTF_8)).isEqualTo("data: {\"id\":\"7\"}\n\n");
        var get = schema.method("shop.Shop/GetBook").orElseThrow();
        TranscodeAnswer unary = TranscodeAnswer.of(get, "application/x-ndjson");
        assertThat(unary.delivery()).isEqualTo(TranscodeAnswer.Delivery.OBJECT);
        assertThat(unary.message(book)).asString(StandardCharsets.UTF_8).isEqualTo("{\"id\":\"7\"}");
        assertThatThrownBy(() -> unary.message(book)).isInstanceOf(TranscodeException.class);

        assertThat(TranscodeAnswer.error(5, "no \"book\"\n"))
                .asString(StandardCharsets.UTF_8)
                .isEqualTo("{\"code\":5,\"message\":\"no \\\"book\\\"\\u000a\"}");
        assertThat(TranscodeAnswer.grpcMessage("not%20found")).isEqualTo("not found");
        int[][] table = {{5, 404}, {3, 400}, {16, 401}, {7, 403}, {14, 503}, {4, 504}, {12, 501}, {13, 500}, {8, 429}};
        for (int[] row : table) {
            assertThat(TranscodeAnswer.httpStatus(row[0])).as("grpc %d", row[0]).isEqualTo(row[1]);
        }
    }

    @Test
    void loadingRefusesAMissingOrCorruptFileAnUnknownServiceAndABadTemplate(@TempDir Path dir) throws Exception {
        Path good = dir.resolve("shop.pb");
        Files.write(good, ShopDescriptors.set().toByteArray());
        assertThat(TranscodeSchema.load(good, List.of("shop.Shop")).bindings()).hasSize(3);
        assertThatThrownBy(() -> TranscodeSchema.load(dir.resolve("nope.pb"), List.of("shop.Shop")))
                .hasMessageContaining("cannot read descriptor set");
        Path corrupt = dir.resolve("corrupt.pb");
        Files.write(corrupt, new byte[] {0x0a, 0x7f, 1, 2});
        assertThatThrownBy(() -> TranscodeSchema.load(corrupt, List.of("shop.Shop")))
                .hasMessageContaining("not a descriptor set");
        assertThatThrownBy(() -> TranscodeSchema.load(good, List.of("shop.Nope")))
                .hasMessageContaining("unknown service 'shop.Nope'");
        assertThatThrownBy(() -> TranscodeSchema.of(ShopDescriptors.set("/v1/{shelf"), List.of("shop.Shop")))
                .hasMessageContaining("shop.Shop.GetBook");
        assertThatThrownBy(() -> TranscodeSchema.of(ShopDescriptors.set("/v1/{colour}"), List.of("shop.Shop")))
                .hasMessageContaining("no field 'colour'");
    }
}
