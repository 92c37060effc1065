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
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An h2c gRPC "service" on raw frames whose answers are cut short: to each call it sends the head
 * ({@code :status 200}, {@code content-type: application/grpc}), then {@code sent} bytes of the answer's
 * length-prefixed messages (no END_STREAM, no trailers), then RST_STREAM with {@code resetCode}, all in
 * one write ({@link #answering500}: a head of 500 alone). The messages are {@code shop.Book}s ({@link ShopService}) hand-encoded: {@link #books}.
 */
public final class GrpcCutUpstream implements AutoCloseable {

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int END_HEADERS = 0x4;
    private static final int ACK = 0x1;

    private final ServerSocket server;
    private final byte[] sent;
    private final int resetCode;
    private final int status; // 0: a gRPC answer cut short; else this HTTP status alone, ended
    private final AtomicInteger calls = new AtomicInteger();
    private final List<Socket> connections = new CopyOnWriteArrayList<>();

    private GrpcCutUpstream(byte[] sent, int resetCode, int status) {
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("gRPC cut upstream: cannot listen", e);
        }
        this.sent = sent.clone();
        this.resetCode = resetCode;
        this.status = status;
        Thread.ofVirtual().start(this::accept);
    }

    /** Answers every call with {@code sent} (gRPC frames, possibly a message's beginning), then the reset. */
    public static GrpcCutUpstream start(byte[] sent, int resetCode) {
        return new GrpcCutUpstream(sent, resetCode, 0);
    }

    /** Answers every call with a head of {@code :status 500} alone, ended (END_STREAM): not a gRPC answer. */
    public static GrpcCutUpstream answering500() {
        return new GrpcCutUpstream(new byte[0], 0, 500);
    }

    /** {@code shop.Book {id: i, title: title}} for i in 1..count, each a length-prefixed gRPC message. */
    public static byte[] books(int count, String title) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] t = title.getBytes(StandardCharsets.UTF_8);
        for (int i = 1; i <= count; i++) {
            // field 1 (int64 id, varint: < 128 here), field 2 (string title, length < 128 here)
            byte[] message = new byte[4 + t.length];
            message[0] = 0x08;
            message[1] = (byte) i;
            message[2] = 0x12;
            message[3] = (byte) t.length;
            System.arraycopy(t, 0, message, 4, t.length);
            out.writeBytes(
                    ByteBuffer.allocate(5).put((byte) 0).putInt(message.length).array());
            out.writeBytes(message);
        }
        return out.toByteArray();
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** The calls it answered so far. */
    public int calls() {
        return calls.get();
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
            out.write(H2Wire.frameBytes(H2Wire.SETTINGS, 0, 0, new byte[0]));
            while (true) {
                int length = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int stream = in.readInt() & 0x7FFFFFFF;
                byte[] payload = new byte[length];
                in.readFully(payload);
                switch (type) {
                    case H2Wire.SETTINGS -> {
                        if ((flags & ACK) == 0) {
                            out.write(H2Wire.frameBytes(H2Wire.SETTINGS, ACK, 0, new byte[0]));
                        }
                    }
                    case H2Wire.PING -> {
                        if ((flags & ACK) == 0) {
                            out.write(H2Wire.frameBytes(H2Wire.PING, ACK, 0, payload));
                        }
                    }
                    case H2Wire.DATA -> {
                        if ((flags & H2Wire.END_STREAM) != 0) { // the call's request is whole: answer it
                            calls.incrementAndGet();
                            out.write(answer(stream));
                        }
                    }
                    case H2Wire.GOAWAY -> {
                        return;
                    }
                    default -> {
                        // HEADERS (the answer waits for the request's message), WINDOW_UPDATE, RST_STREAM
                    }
                }
            }
        } catch (IOException e) {
            // the gateway closed the connection, or the upstream stops
        }
    }

    private byte[] answer(int stream) {
        if (status == 500) {
            return H2Wire.frameBytes(H2Wire.HEADERS, END_HEADERS | H2Wire.END_STREAM, stream, new byte[] {
                (byte) 0x8e // :status 500 (static 14)
            });
        }
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        head.write(0x88); // :status 200 (static 8)
        head.writeBytes(H2Wire.literalField("content-type", "application/grpc"));
        all.writeBytes(H2Wire.frameBytes(H2Wire.HEADERS, END_HEADERS, stream, head.toByteArray()));
        if (sent.length > 0) {
            all.writeBytes(H2Wire.frameBytes(H2Wire.DATA, 0, stream, sent));
        }
        all.writeBytes(H2Wire.frameBytes(
                H2Wire.RST_STREAM,
                0,
                stream,
                ByteBuffer.allocate(4).putInt(resetCode).array()));
        return all.toByteArray();
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
