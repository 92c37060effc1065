package dev.sluice.engine.blocking.upstream;

import dev.sluice.tck.RefusingPort;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP server on 127.0.0.1 that misbehaves in one way, for failures a real HTTP server will not
 * produce: an answer that is not HTTP, a reset instead of an answer, or a full accept queue (a
 * connect that never completes).
 */
final class RawSocketUpstream implements AutoCloseable {

    enum Behaviour {
        /** Reads the request head, answers a line that is not an HTTP status line. */
        GARBAGE,
        /** Reads the request head, answers a status line and a Content-Length that is not a number. */
        BAD_CONTENT_LENGTH,
        /** Reads the request head, then resets the connection (RST). */
        RESET,
        /** Never accepts; its accept queue is full, so a new connect gets no answer. */
        FULL_BACKLOG
    }

    private final ServerSocket server;
    private final List<Socket> fillers = new ArrayList<>();
    private final Thread acceptor;

    private RawSocketUpstream(ServerSocket server, Thread acceptor) {
        this.server = server;
        this.acceptor = acceptor;
    }

    static RawSocketUpstream start(Behaviour behaviour) {
        try {
            if (behaviour == Behaviour.FULL_BACKLOG) {
                ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                RawSocketUpstream upstream = new RawSocketUpstream(server, null);
                for (int i = 0; i < 2; i++) { // Linux queues backlog + 1 connections, then drops SYNs
                    Socket filler = new Socket();
                    filler.connect(
                            new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 1000);
                    upstream.fillers.add(filler);
                }
                return upstream;
            }
            ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = Thread.ofVirtual().name("raw-upstream").start(() -> serve(server, behaviour));
            return new RawSocketUpstream(server, acceptor);
        } catch (IOException e) {
            throw new UncheckedIOException("raw upstream: could not listen on 127.0.0.1", e);
        }
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    private static void serve(ServerSocket server, Behaviour behaviour) {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread.ofVirtual().start(() -> answer(socket, behaviour));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void answer(Socket socket, Behaviour behaviour) {
        try (socket) {
            readHead(socket.getInputStream());
            String answer = switch (behaviour) {
                case GARBAGE -> "THIS IS NOT HTTP\r\n\r\n";
                case BAD_CONTENT_LENGTH -> "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nok";
                default -> null;
            };
            if (answer != null) {
                socket.getOutputStream().write(answer.getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                Thread.sleep(200); // let the client read it before the close
            } else {
                socket.setSoLinger(true, 0); // close() now sends RST
            }
        } catch (IOException | InterruptedException ignored) {
            // the client gave up first
        }
    }

    private static void readHead(InputStream in) throws IOException {
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return;
            }
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
    }

    /** A port on 127.0.0.1 that refuses connections for the JVM's lifetime ({@link RefusingPort}). */
    static URI refusedUrl() {
        return RefusingPort.shared().url();
    }

    @Override
    public void close() {
        try {
            server.close();
            for (Socket filler : fillers) {
                filler.close();
            }
        } catch (IOException ignored) {
            // closing test sockets
        }
        if (acceptor != null) {
            acceptor.interrupt();
        }
    }
}
