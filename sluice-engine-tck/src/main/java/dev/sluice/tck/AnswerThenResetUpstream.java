package dev.sluice.tck;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An h2c upstream on raw frames that answers each request whole at once, while its request half is
 * still open, and then ends that half with RST_STREAM(NO_ERROR), as RFC 9113 8.1 allows a server
 * that no longer needs the request's body: HEADERS (200), {@code bodyBytes} of DATA (the last with
 * END_STREAM, or followed by trailers {@code x-trailer: yes} when {@code withTrailers}), then the
 * reset, all in one write. It never reads the request's body, and never grants it window.
 */
public final class AnswerThenResetUpstream implements AutoCloseable {

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int DATA = 0x0;
    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;
    private static final int SETTINGS = 0x4;
    private static final int PING = 0x6;
    private static final int GOAWAY = 0x7;
    private static final int END_STREAM = 0x1;
    private static final int END_HEADERS = 0x4;
    private static final int ACK = 0x1;

    private final ServerSocket server;
    private final int bodyBytes;
    private final boolean withTrailers;
    private final List<Socket> connections = new CopyOnWriteArrayList<>();

    private AnswerThenResetUpstream(int bodyBytes, boolean withTrailers) {
        if (bodyBytes > 60 * 1024) {
            throw new IllegalArgumentException("the answer must fit the default windows (65,535 bytes)");
        }
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("answer-then-reset upstream: cannot listen", e);
        }
        this.bodyBytes = bodyBytes;
        this.withTrailers = withTrailers;
        Thread.ofVirtual().start(this::accept);
    }

    /** Answers {@code bodyBytes} of {@link GeneratedBody#binary}, then trailers when {@code withTrailers}. */
    public static AnswerThenResetUpstream start(int bodyBytes, boolean withTrailers) {
        return new AnswerThenResetUpstream(bodyBytes, withTrailers);
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                connections.add(socket);
                Thread.ofVirtual().start(() -> serve(socket));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            in.readFully(new byte[PREFACE.length]);
            out.write(frame(SETTINGS, 0, 0, new byte[0]));
            while (true) {
                int length = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int stream = in.readInt() & 0x7FFFFFFF;
                byte[] payload = new byte[length];
                in.readFully(payload);
                switch (type) {
                    case SETTINGS -> {
                        if ((flags & ACK) == 0) {
                            out.write(frame(SETTINGS, ACK, 0, new byte[0]));
                        }
                    }
                    case PING -> {
                        if ((flags & ACK) == 0) {
                            out.write(frame(PING, ACK, 0, payload));
                        }
                    }
                    case HEADERS -> out.write(answer(stream));
                    case GOAWAY -> {
                        return;
                    }
                    default -> {
                        // DATA of a request body never read, WINDOW_UPDATE, PRIORITY, RST_STREAM: ignored
                    }
                }
            }
        } catch (IOException e) {
            // the gateway closed the connection, or the upstream stops
        }
    }

    /** The whole answer on {@code stream} and the reset ending its request half, as one write. */
    private byte[] answer(int stream) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        head.write(0x88); // :status 200 (static 8)
        literal(head, "content-type", "application/octet-stream");
        all.writeBytes(frame(HEADERS, END_HEADERS, stream, head.toByteArray()));
        byte[] body = GeneratedBody.binary(bodyBytes).bytes();
        for (int at = 0; at < body.length || at == 0; ) {
            int n = Math.min(16_384, body.length - at);
            boolean last = at + n == body.length;
            byte[] chunk = java.util.Arrays.copyOfRange(body, at, at + n);
            all.writeBytes(frame(DATA, last && !withTrailers ? END_STREAM : 0, stream, chunk));
            at += n;
            if (last) {
                break;
            }
        }
        if (withTrailers) {
            ByteArrayOutputStream trailers = new ByteArrayOutputStream();
            literal(trailers, "x-trailer", "yes");
            all.writeBytes(frame(HEADERS, END_HEADERS | END_STREAM, stream, trailers.toByteArray()));
        }
        all.writeBytes(frame(RST_STREAM, 0, stream, new byte[4])); // NO_ERROR
        return all.toByteArray();
    }

    /** A literal field without indexing with a new name (names and values under 127 bytes). */
    private static void literal(ByteArrayOutputStream block, String name, String value) {
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        byte[] v = value.getBytes(StandardCharsets.US_ASCII);
        block.write(0x00);
        block.write(n.length);
        block.writeBytes(n);
        block.write(v.length);
        block.writeBytes(v);
    }

    private static byte[] frame(int type, int flags, int stream, byte[] payload) {
        return ByteBuffer.allocate(9 + payload.length)
                .put((byte) (payload.length >>> 16))
                .put((byte) (payload.length >>> 8))
                .put((byte) payload.length)
                .put((byte) type)
                .put((byte) flags)
                .putInt(stream & 0x7FFFFFFF)
                .put(payload)
                .array();
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // stopping after the test: nothing to report
        }
        for (Socket s : connections) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed by the gateway
            }
        }
    }
}
