package dev.sluice.engine.blocking.upstream;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.GZIPOutputStream;

/**
 * A real HTTP/1.1 upstream on 127.0.0.1 and a free port (the JDK's {@code HttpServer}, a virtual
 * thread per exchange), answering what the client tests ask for:
 *
 * <pre>
 *   /bytes/N[?chunked=1][&delay=ms][&stallAt=k&stall=ms][&ct=type]   N pattern bytes, see {@link #pattern}
 *   /json/NAME/SIZE[?delay=ms]    a JSON object of exactly SIZE bytes
 *   /echo                         the request body back; X-Framing: length:N | chunked
 *   /inspect                      "METHOD TARGET" then one "name: value" line per request header
 *   /gzip                         gzip-compressed pattern bytes, Content-Encoding: gzip
 *   /set-cookie, /redirect, /unauthorized
 * </pre>
 *
 * It records the client port of every exchange, which tells whether a connection was reused.
 */
final class LoopbackUpstream implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final List<Integer> clientPorts = new CopyOnWriteArrayList<>();

    private LoopbackUpstream(HttpServer server) {
        this.server = server;
    }

    static LoopbackUpstream start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
            LoopbackUpstream upstream = new LoopbackUpstream(server);
            server.createContext("/", upstream::handle);
            server.setExecutor(upstream.threads);
            server.start();
            return upstream;
        } catch (IOException e) {
            throw new UncheckedIOException("upstream: could not listen on 127.0.0.1", e);
        }
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The client port of the last exchange: the same port means the same connection. */
    int lastClientPort() {
        return clientPorts.getLast();
    }

    /** Byte {@code i} of every /bytes body. */
    static byte[] pattern(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 + (i >>> 8) + 7);
        }
        return bytes;
    }

    /** The body of /json/NAME/SIZE. */
    static byte[] json(String name, int size) {
        String head = "{\"name\":\"" + name + "\",\"pad\":\"";
        int pad = size - head.length() - 2;
        if (pad < 0) {
            throw new IllegalArgumentException("size: " + size + " (expected: >= " + (head.length() + 2) + ")");
        }
        return (head + "x".repeat(pad) + "\"}").getBytes(StandardCharsets.US_ASCII);
    }

    private void handle(HttpExchange exchange) throws IOException {
        clientPorts.add(exchange.getRemoteAddress().getPort());
        try (exchange) {
            String[] path = exchange.getRequestURI().getRawPath().substring(1).split("/");
            Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
            sleep(Long.parseLong(query.getOrDefault("delay", "0")));
            switch (path[0]) {
                case "bytes" -> bytes(exchange, Integer.parseInt(path[1]), query);
                case "json" -> send(exchange, 200, "application/json", json(path[1], Integer.parseInt(path[2])));
                case "echo" -> echo(exchange);
                case "inspect" -> send(exchange, 200, "text/plain", inspect(exchange));
                case "gzip" -> {
                    exchange.getResponseHeaders().add("Content-Encoding", "gzip");
                    send(exchange, 200, "application/octet-stream", gzip(pattern(10_000)));
                }
                case "set-cookie" -> {
                    exchange.getResponseHeaders().add("Set-Cookie", "session=abc; Path=/");
                    send(exchange, 200, "text/plain", "cookie set".getBytes(StandardCharsets.US_ASCII));
                }
                case "redirect" -> {
                    exchange.getResponseHeaders().add("Location", "/bytes/10");
                    send(exchange, 302, "text/plain", "moved".getBytes(StandardCharsets.US_ASCII));
                }
                case "unauthorized" -> {
                    exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"test\"");
                    send(exchange, 401, "text/plain", "who are you".getBytes(StandardCharsets.US_ASCII));
                }
                default -> send(exchange, 404, "text/plain", "no such path".getBytes(StandardCharsets.US_ASCII));
            }
        } catch (IOException e) {
            // the client went away (aborted or timed out): expected in these tests
        }
    }

    private static void bytes(HttpExchange exchange, int length, Map<String, String> query) throws IOException {
        byte[] body = pattern(length);
        boolean chunked = query.containsKey("chunked");
        int stallAt = Integer.parseInt(query.getOrDefault("stallAt", "-1"));
        exchange.getResponseHeaders().add("Content-Type", query.getOrDefault("ct", "application/octet-stream"));
        exchange.getResponseHeaders().add("X-Body-Length", Integer.toString(length));
        exchange.sendResponseHeaders(200, chunked ? 0 : length);
        OutputStream out = exchange.getResponseBody();
        if (stallAt >= 0) {
            out.write(body, 0, stallAt);
            out.flush();
            sleep(Long.parseLong(query.getOrDefault("stall", "0")));
            out.write(body, stallAt, length - stallAt);
        } else {
            for (int off = 0; off < length; off += 8192) { // several writes: several chunks when chunked
                out.write(body, off, Math.min(8192, length - off));
            }
        }
    }

    private static void echo(HttpExchange exchange) throws IOException {
        byte[] body = exchange.getRequestBody().readAllBytes();
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        String encoding = exchange.getRequestHeaders().getFirst("Transfer-Encoding");
        String framing =
                length != null ? "length:" + length : encoding != null ? encoding.toLowerCase(Locale.ROOT) : "none";
        exchange.getResponseHeaders().add("X-Framing", framing);
        send(exchange, 200, "application/octet-stream", body);
    }

    private static byte[] inspect(HttpExchange exchange) throws IOException {
        exchange.getRequestBody().readAllBytes();
        StringBuilder text = new StringBuilder(exchange.getRequestMethod() + " " + exchange.getRequestURI() + "\n");
        Map<String, List<String>> sorted = new TreeMap<>();
        exchange.getRequestHeaders().forEach((name, values) -> sorted.put(name.toLowerCase(Locale.ROOT), values));
        sorted.forEach((name, values) ->
                values.forEach(v -> text.append(name).append(": ").append(v).append('\n')));
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().add("Content-Type", contentType);
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        exchange.getResponseBody().write(body);
    }

    static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> query = new HashMap<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                query.put(eq < 0 ? pair : pair.substring(0, eq), eq < 0 ? "" : pair.substring(eq + 1));
            }
        }
        return query;
    }

    private static void sleep(long millis) {
        if (millis > 0) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
