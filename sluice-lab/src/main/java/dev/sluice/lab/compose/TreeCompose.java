package dev.sluice.lab.compose;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/**
 * The compose scenario's in-memory baseline ({@code sluice-lab tree-compose --port N --upstream URL}), made
 * as KrakenD composes: every part is fetched whole, parsed into a Jackson tree, shaped on the tree (the
 * same {@code select} as Sluice's shaped route), merged into one object and written with a Content-Length.
 * Routes as the scenario's gateway config: {@code /compose/{plain,shaped,chained,collection}/{size}}.
 */
public final class TreeCompose {

    /** The shaped route's selection, as in the gateway config. */
    public static final List<String> SELECT = List.of("id", "name", "price", "items[*].sku");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI upstream;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    TreeCompose(URI upstream) {
        this.upstream = upstream;
    }

    /**
     * Keeps the member paths of {@code select} (Sluice's syntax: {@code a.b}, {@code a[*].b}; arrays are
     * transparent) and drops the rest, on a tree; a copy.
     */
    public static JsonNode select(JsonNode node, List<String> select) {
        Map<String, Object> trie = new LinkedHashMap<>();
        for (String path : select) {
            Map<String, Object> at = trie;
            for (String name : path.replace("[*]", "").split("\\.")) {
                @SuppressWarnings("unchecked")
                Map<String, Object> next = (Map<String, Object>) at.computeIfAbsent(name, k -> new LinkedHashMap<>());
                at = next;
            }
        }
        return keep(node, trie);
    }

    private static JsonNode keep(JsonNode node, Map<String, Object> trie) {
        if (trie.isEmpty()) {
            return node;
        }
        if (node.isArray()) {
            ArrayNode out = JsonNodeFactory.instance.arrayNode(node.size());
            node.forEach(e -> out.add(keep(e, trie)));
            return out;
        }
        if (!node.isObject()) {
            return node;
        }
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, JsonNode> member : node.properties()) {
            @SuppressWarnings("unchecked")
            Map<String, Object> sub = (Map<String, Object>) trie.get(member.getKey());
            if (sub != null) {
                out.set(member.getKey(), keep(member.getValue(), sub));
            }
        }
        return out;
    }

    /** The composed object for {@code kind} and {@code size}. */
    ObjectNode compose(String kind, int size) {
        String doc = "/doc/" + size;
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        switch (kind) {
            case "plain", "shaped" -> {
                CompletableFuture<JsonNode> product = fetch(doc);
                CompletableFuture<JsonNode> twin = fetch(doc);
                JsonNode p = product.join();
                JsonNode t = twin.join();
                if (kind.equals("shaped")) {
                    p = select(p, SELECT);
                    t = select(t, SELECT);
                }
                out.set("product", p);
                out.set("twin", t);
            }
            case "chained" -> {
                JsonNode product = fetch(doc).join();
                List<String> ids = new ArrayList<>();
                product.path("reviewIds").forEach(id -> ids.add(id.asText()));
                out.set("product", product);
                out.set(
                        "reviews",
                        fetch("/reviews?ids=" + String.join(",", ids)).join());
            }
            case "collection" -> {
                JsonNode product = fetch(doc).join();
                Semaphore five = new Semaphore(5);
                List<CompletableFuture<JsonNode>> related = new ArrayList<>();
                for (JsonNode id : product.path("relatedIds")) {
                    if (related.size() == 20) {
                        break;
                    }
                    five.acquireUninterruptibly();
                    related.add(fetch("/products/" + id.asText()).whenComplete((n, e) -> five.release()));
                }
                ArrayNode array = JsonNodeFactory.instance.arrayNode();
                related.forEach(f -> array.add(f.join()));
                out.set("product", product);
                out.set("related", array);
            }
            default -> throw new IllegalArgumentException("kind: '" + kind + "'");
        }
        return out;
    }

    private CompletableFuture<JsonNode> fetch(String path) {
        HttpRequest request = HttpRequest.newBuilder(upstream.resolve(path))
                .header("Accept", "application/json")
                .timeout(Duration.ofSeconds(60))
                .build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).thenApply(r -> {
            if (r.statusCode() != 200) {
                throw new IllegalStateException("part " + path + ": status " + r.statusCode());
            }
            try {
                return JSON.readTree(r.body());
            } catch (IOException e) {
                throw new IllegalStateException("part " + path + ": " + e.getMessage(), e);
            }
        });
    }

    private boolean handle(Request request, Response response, Callback callback) throws IOException {
        String[] segments = Request.getPathInContext(request).split("/");
        // "", "compose", kind, size
        if (segments.length != 4
                || !segments[1].equals("compose")
                || !List.of("plain", "shaped", "chained", "collection").contains(segments[2])) {
            return false;
        }
        int size;
        try {
            size = Integer.parseInt(segments[3]);
        } catch (NumberFormatException e) {
            Response.writeError(request, response, callback, 400, "size: not a number");
            return true;
        }
        byte[] body;
        try {
            body = JSON.writeValueAsBytes(compose(segments[2], size));
        } catch (RuntimeException e) {
            Response.writeError(request, response, callback, 502, "a part failed");
            return true;
        }
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
        return true;
    }

    /** {@code tree-compose --port N --upstream URL}: runs until killed. */
    public static int main(List<String> args) throws Exception {
        int port = 0;
        URI upstream = null;
        for (int i = 0; i + 1 < args.size(); i++) {
            switch (args.get(i)) {
                case "--port" -> port = Integer.parseInt(args.get(++i));
                case "--upstream" -> upstream = URI.create(args.get(++i));
                default -> {}
            }
        }
        if (upstream == null) {
            System.err.println("tree-compose: --upstream URL is required");
            return 2;
        }
        TreeCompose tree = new TreeCompose(upstream);
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                return tree.handle(request, response, callback);
            }
        });
        server.start();
        System.out.println("tree compose started: http://127.0.0.1:" + connector.getLocalPort() + "/compose/");
        System.out.flush();
        server.join();
        return 0;
    }
}
