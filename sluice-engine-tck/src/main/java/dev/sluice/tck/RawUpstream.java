package dev.sluice.tck;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An upstream that misbehaves below HTTP, which the JDK server cannot: it reads each request head,
 * then either writes fixed bytes (say, a malformed status line) and closes, resets the connection,
 * or answers the first request on a connection and closes it when the second arrives.
 */
public final class RawUpstream implements AutoCloseable {

    private final ServerSocket server;
    private final byte[] answer; // empty: reset instead
    private final boolean keepFirst; // answer the first request and keep the connection for a second
    private final AtomicInteger heads = new AtomicInteger();

    private RawUpstream(ServerSocket server, byte[] answer, boolean keepFirst) {
        this.server = server;
        this.answer = answer;
        this.keepFirst = keepFirst;
        Thread.ofVirtual().start(this::accept);
    }

    /** Answers every request with {@code bytes}, then closes the connection. */
    public static RawUpstream answering(String bytes) {
        return new RawUpstream(listen(), bytes.getBytes(StandardCharsets.ISO_8859_1), false);
    }

    /**
     * Answers every request with {@code bytes}, then closes the connection, on {@code address} and
     * {@code port} (another upstream's, to stand beside it at a second loopback address).
     */
    public static RawUpstream answering(String bytes, InetAddress address, int port) {
        try {
            return new RawUpstream(
                    new ServerSocket(port, 50, address), bytes.getBytes(StandardCharsets.ISO_8859_1), false);
        } catch (IOException e) {
            throw new UncheckedIOException("raw upstream: cannot listen on " + address + ":" + port, e);
        }
    }

    /** The port it listens on. */
    public int port() {
        return server.getLocalPort();
    }

    /**
     * Answers the first request on each connection with {@code bytes} (a keep-alive response) and
     * keeps the connection open; closes it, answering nothing, when the next request's head arrives:
     * an upstream whose keep-alive timeout fired just as the gateway reused the connection.
     */
    public static RawUpstream answeringOnceThenClosingOnTheNextRequest(String bytes) {
        return new RawUpstream(listen(), bytes.getBytes(StandardCharsets.ISO_8859_1), true);
    }

    /** How many request heads arrived, on every connection. */
    public int heads() {
        return heads.get();
    }

    /** Resets every connection (TCP RST) once the request head has arrived, answering nothing. */
    public static RawUpstream resetting() {
        return new RawUpstream(listen(), new byte[0], false);
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    private static ServerSocket listen() {
        try {
            return new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("raw upstream: cannot listen on 127.0.0.1", e);
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread.ofVirtual().start(() -> serve(socket));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            if (!readHead(socket.getInputStream())) {
                return;
            }
            if (keepFirst) {
                socket.getOutputStream().write(answer);
                socket.getOutputStream().flush();
                readHead(socket.getInputStream());
                return; // the second request: closed, unanswered
            }
            if (answer.length == 0) {
                socket.setSoLinger(true, 0); // close() now sends RST
                return;
            }
            socket.getOutputStream().write(answer);
            socket.getOutputStream().flush();
        } catch (IOException ignored) {
            // the gateway went away
        }
    }

    /** Whether a whole head arrived before the end of the stream. */
    private boolean readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        for (int c = in.read(); c >= 0; c = in.read()) {
            head.write(c);
            matched = c == end[matched] ? matched + 1 : (c == '\r' ? 1 : 0);
            if (matched == end.length) {
                heads.incrementAndGet();
                return true;
            }
        }
        return false;
    }
}
