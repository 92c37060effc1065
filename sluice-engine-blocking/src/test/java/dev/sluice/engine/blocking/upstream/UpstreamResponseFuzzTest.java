package dev.sluice.engine.blocking.upstream;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.config.UpstreamConfig;
import dev.sluice.http.ResponseHeadCheck;
import dev.sluice.http.UpstreamFailure;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;

/**
 * Fuzzes the blocking engine's upstream client ({@link Http1Exchange}: the status line, header
 * and body framing parser) with whatever an upstream may answer. The parser reads only from its
 * pooled socket, so each input is served whole by a raw server on 127.0.0.1 (port 0), which then
 * closes its side; docs/FUZZING.md says how to fuzz longer.
 *
 * <p>Input: the upstream's answer, bytes as they are sent. Whatever they are, the client answers
 * a response or an {@link UpstreamException} ({@code bad_response} or a reset, never anything else
 * and never another exception); a response it accepts has a final status, headers that are tokens
 * and values without CR, LF or NUL, and that {@link ResponseHeadCheck} lets through; and a body
 * that ends cleanly is exactly the bytes its framing says: Content-Length bytes, the chunks' data,
 * or everything up to the close (the only way a gateway can relay an answer it did not guess at).
 */
class UpstreamResponseFuzzTest {

    private static final RawServer SERVER = new RawServer();
    private static final Set<UpstreamFailure> EXPECTED_FAILURES =
            Set.of(UpstreamFailure.BAD_RESPONSE, UpstreamFailure.RESET);

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] answer) throws Exception {
        // Jazzer's SSRF detector: connecting is what this test does, to its own server only
        try (SilentCloseable allowed =
                BugDetectors.allowNetworkConnections((host, port) -> port == SERVER.server.getLocalPort())) {
            exchange(answer);
        }
    }

    private static void exchange(byte[] answer) throws Exception {
        SERVER.answer = answer;
        UpstreamConfig defaults = UpstreamConfig.of("fuzz", SERVER.url());
        UpstreamConfig config = new UpstreamConfig(
                "fuzz",
                SERVER.url(),
                1,
                Duration.ofSeconds(10),
                Duration.ofSeconds(10),
                Duration.ofSeconds(10),
                defaults.maxPending(),
                defaults.idleTimeout(),
                Optional.empty());
        try (Http1UpstreamClient client = new Http1UpstreamClient(config)) {
            UpstreamResponse response;
            try {
                response = client.send(new UpstreamRequest("GET", "/fuzz").header("Host", "fuzz"));
            } catch (UpstreamException e) {
                check(EXPECTED_FAILURES.contains(e.failure()), "send failed with " + e.failure() + ": " + e, answer, e);
                return;
            }
            try {
                checkHead(response, answer);
                checkBody(response, answer);
            } finally {
                response.closeQuietly();
            }
        }
    }

    private static void checkHead(UpstreamResponse response, byte[] answer) {
        check(response.status() >= 200 && response.status() <= 999, "status " + response.status(), answer, null);
        ResponseHeadCheck head = new ResponseHeadCheck();
        for (int i = 0; i < response.headerCount(); i++) {
            String name = response.headerName(i);
            String value = response.headerValue(i);
            check(
                    !name.isEmpty() && name.chars().allMatch(UpstreamResponseFuzzTest::tchar),
                    "name " + name,
                    answer,
                    null);
            check(value.chars().noneMatch(c -> c == '\r' || c == '\n' || c == 0), "value of " + name, answer, null);
            check(value.equals(value.strip()) || value.isBlank(), "value of " + name + " not trimmed", answer, null);
            head.header(name, value);
        }
        int minor = answer.length > 7 && answer[7] == '0' ? 0 : 1;
        String verdict = head.verdict(1, minor, response.status());
        check(verdict == null, "relayed a head ResponseHeadCheck refuses: " + verdict, answer, null);
    }

    private static void checkBody(UpstreamResponse response, byte[] answer) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] buffer = new byte[answer.length % 3 == 0 ? 7 : 4096]; // small reads go through the parser's buffer
        try {
            for (int n; (n = response.read(buffer, 0, buffer.length)) >= 0; ) {
                body.write(buffer, 0, n);
                check(body.size() <= answer.length, "more body than the upstream sent", answer, null);
            }
        } catch (UpstreamException e) {
            check(EXPECTED_FAILURES.contains(e.failure()), "the body failed with " + e.failure(), answer, e);
            return;
        }
        if (answer.length < 13 || interimFirst(answer)) {
            return; // an interim response came first: the final head's place is the parser's to find
        }
        int headEnd = headEnd(answer);
        byte[] rest = Arrays.copyOfRange(answer, headEnd, answer.length);
        String transferEncoding = response.header("Transfer-Encoding");
        String contentLength = response.header("Content-Length");
        byte[] expected;
        if (response.status() == 204 || response.status() == 304) {
            expected = new byte[0];
        } else if (transferEncoding != null) {
            expected = dechunk(rest);
            check(expected != null, "a body ended cleanly that is not complete chunked coding", answer, null);
        } else if (contentLength != null) {
            long length = Long.parseLong(contentLength.split(",")[0].strip());
            check(rest.length >= length, "a body ended cleanly before its Content-Length", answer, null);
            expected = Arrays.copyOf(rest, (int) length);
        } else {
            expected = rest;
        }
        check(
                Arrays.equals(body.toByteArray(), expected),
                "body " + body.toString(ISO_8859_1) + ", expected " + new String(expected, ISO_8859_1),
                answer,
                null);
    }

    /**
     * Whether the first status code begins with 1 (an interim response): after {@code HTTP/1.x} and
     * the spaces the parser tolerates there (Jetty's reads {@code HTTP/1.1  100} as a 100).
     */
    private static boolean interimFirst(byte[] b) {
        int i = 8;
        while (i < b.length && (b[i] == ' ' || b[i] == '\t')) {
            i++;
        }
        return i < b.length && b[i] == '1';
    }

    /** Where the head ends: after the first empty line (CRLF or a bare LF). */
    private static int headEnd(byte[] b) {
        for (int i = 1; i < b.length; i++) {
            if (b[i] == '\n' && (b[i - 1] == '\n' || (i >= 2 && b[i - 1] == '\r' && b[i - 2] == '\n'))) {
                return i + 1;
            }
        }
        return b.length;
    }

    /** The data of complete chunked coding (sizes in hex, extensions after ';', SP or HTAB; trailers), else null. */
    private static byte[] dechunk(byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int p = 0;
        while (true) {
            int eol = indexOf(b, p);
            if (eol < 0) {
                return null;
            }
            String line = new String(b, p, eol - p, ISO_8859_1);
            line = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
            int stop = 0;
            while (stop < line.length() && Character.digit(line.charAt(stop), 16) >= 0) {
                stop++;
            }
            if (stop == 0 || stop > 15 || (stop < line.length() && ";  \t".indexOf(line.charAt(stop)) < 0)) {
                return null;
            }
            long size = Long.parseLong(line.substring(0, stop), 16);
            p = eol + 1;
            if (size == 0) {
                while (true) { // trailer lines up to an empty one
                    int end = indexOf(b, p);
                    if (end < 0) {
                        return null;
                    }
                    boolean empty = end == p || (end == p + 1 && b[p] == '\r');
                    p = end + 1;
                    if (empty) {
                        return out.toByteArray();
                    }
                }
            }
            if (p + size > b.length) {
                return null;
            }
            out.write(b, p, (int) size);
            p += (int) size;
            int end = indexOf(b, p);
            if (end < 0 || !(end == p || (end == p + 1 && b[p] == '\r'))) {
                return null;
            }
            p = end + 1;
        }
    }

    private static int indexOf(byte[] b, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static boolean tchar(int c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    private static void check(boolean ok, String what, byte[] answer, Throwable cause) {
        if (!ok) {
            throw new AssertionError(what + " (answer: " + new String(answer, ISO_8859_1) + ")", cause);
        }
    }

    /** Answers every connection with the current input: reads the request head, writes, closes its side. */
    private static final class RawServer {
        private final ServerSocket server;
        volatile byte[] answer = new byte[0];

        RawServer() {
            try {
                server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Thread.ofPlatform().daemon().name("fuzz-upstream").start(this::serve);
        }

        URI url() {
            return URI.create("http://127.0.0.1:" + server.getLocalPort());
        }

        private void serve() {
            while (true) {
                try {
                    Socket socket = server.accept();
                    byte[] bytes = answer;
                    Thread.ofVirtual().start(() -> answer(socket, bytes));
                } catch (IOException e) {
                    return;
                }
            }
        }

        private static void answer(Socket socket, byte[] bytes) {
            try (socket) {
                socket.setSoTimeout(10_000);
                InputStream in = socket.getInputStream();
                int matched = 0;
                while (matched < 4) { // the request head, up to CRLF CRLF
                    int b = in.read();
                    if (b < 0) {
                        return;
                    }
                    matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
                }
                OutputStream out = socket.getOutputStream();
                out.write(bytes);
                out.flush();
                socket.shutdownOutput();
                while (in.read() >= 0) {
                    // until the client closes: closing with unread bytes would reset the connection
                }
            } catch (IOException ignored) {
                // the client stopped reading (a refused head) or closed first
            }
        }
    }
}
