package dev.sluice.lab.grpc;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The grpc scenario's transcoding leg: JSON clients over HTTP/1.1 calling the lab's service through a
 * gateway's {@code grpc-transcode} routes, one call after another per caller, as {@link GrpcLoad} does
 * over gRPC: {@code POST /json/say} with a {@code Msg} as JSON (one object back), {@code POST
 * /json/stream} (a JSON array of {@code n} objects back). A call counts when its answer is a 200 with
 * every element.
 */
public final class JsonLoad {

    private JsonLoad() {}

    /** The JSON of {@link GrpcLoad#message(int, int)}: the same {@code n} and text. */
    public static String body(int n, int size) {
        return "{\"n\":" + n + ",\"text\":\"" + "x".repeat(Math.max(0, size - 5)) + "\"}";
    }

    /** {@code concurrency} callers for {@code seconds} on the gateway at {@code port}, as {@link GrpcLoad#run}. */
    public static GrpcLoad.Result run(int port, boolean stream, int concurrency, double seconds, int size, int messages)
            throws InterruptedException {
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        try {
            HttpRequest request = HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + (stream ? "/json/stream" : "/json/say")))
                    .timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body(stream ? messages : 0, size)))
                    .build();
            int expected = stream ? messages : 1;
            return GrpcLoad.callers("json-load-", concurrency, seconds, () -> {
                HttpResponse<byte[]> answer = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
                return answer.statusCode() == 200 && elements(answer.body()) == expected;
            });
        } finally {
            client.shutdownNow();
        }
    }

    /** The plain JSON part's size beside the gRPC part in the compose leg ({@code /bytes/N} of the lab's sizes upstream). */
    public static final int COMPOSE_JSON_PART = 256;

    /**
     * The compose leg: {@code concurrency} callers, each {@code GET /compose/say} (a plain JSON part
     * beside a unary Say part) or {@code /compose/stream} (beside a Stream part of {@code messages}), as
     * {@link #run}. A call counts when it is a 200 whose gRPC part is whole (every element) and no part
     * failed ({@code _meta}'s {@code "failed":[]}).
     */
    public static GrpcLoad.Result compose(int port, boolean stream, int concurrency, double seconds, int messages)
            throws InterruptedException {
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        try {
            HttpRequest request = HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + (stream ? "/compose/stream" : "/compose/say")))
                    .timeout(Duration.ofSeconds(10))
                    .GET()
                    .build();
            int expected = stream ? messages : 1;
            return GrpcLoad.callers("json-compose-", concurrency, seconds, () -> {
                HttpResponse<byte[]> answer = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
                return answer.statusCode() == 200
                        && elements(answer.body()) == expected
                        && new String(answer.body(), StandardCharsets.UTF_8).contains("\"failed\":[]");
            });
        } finally {
            client.shutdownNow();
        }
    }

    /** The query that fills a {@code Msg} of {@code n} like {@link #body}'s: {@code n=…&text=xx…}. */
    public static String query(int n, int size) {
        return "n=" + n + "&text=" + "x".repeat(Math.max(0, size - 5));
    }

    /** How many {@code Msg} objects a JSON answer holds: its {@code "text"} fields. */
    public static int elements(byte[] body) {
        String json = new String(body, StandardCharsets.UTF_8);
        int count = 0;
        for (int i = json.indexOf("\"text\""); i >= 0; i = json.indexOf("\"text\"", i + 6)) {
            count++;
        }
        return count;
    }
}
