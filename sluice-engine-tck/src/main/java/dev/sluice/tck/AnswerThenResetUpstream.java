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
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An h2c upstream on raw frames that answers each request whole, while its request half is still
 * open, and then ends that half with RST_STREAM(NO_ERROR), as RFC 9113 8.1 allows a server that no
 * longer needs the request's body: HEADERS (200), {@code bodyBytes} of DATA (the last with END_STREAM,
 * or followed by trailers {@code x-trailer: yes} when {@code withTrailers}), then the reset. It keeps
 * the gateway's flow control (the connection's window and each stream's, SETTINGS_INITIAL_WINDOW_SIZE
 * and WINDOW_UPDATE): what the windows allow goes at once, in one write with the reset when the whole
 * answer fits; the rest as WINDOW_UPDATEs come. It never reads the request's body, and never grants it
 * window. {@link #incomplete} sends only part of the answer (no END_STREAM, no trailers) before the reset;
 * {@link #connectionError} part of it before a connection error of its own;
 * {@link #grpcIncomplete} part of a gRPC answer ({@code content-type: application/grpc}, given bytes).
 */
public final class AnswerThenResetUpstream implements AutoCloseable {

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int END_HEADERS = 0x4;
    private static final int ACK = 0x1;
    private static final int DEFAULT_WINDOW = 65_535;
    private static final String OCTETS = "application/octet-stream";

    private final ServerSocket server;
    private final int bodyBytes;
    private final byte[] body;
    private final String contentType;
    private final boolean withTrailers;
    private final int sentBytes;
    private final int resetCode;
    private final boolean connectionError; // ends with a connection error of its own, not a reset
    private final List<Socket> connections = new CopyOnWriteArrayList<>();

    private AnswerThenResetUpstream(
            byte[] body, String contentType, boolean withTrailers, int sentBytes, int resetCode) {
        this(body, contentType, withTrailers, sentBytes, resetCode, false);
    }

    private AnswerThenResetUpstream(
            byte[] body,
            String contentType,
            boolean withTrailers,
            int sentBytes,
            int resetCode,
            boolean connectionError) {
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("answer-then-reset upstream: cannot listen", e);
        }
        this.bodyBytes = body.length;
        this.body = body;
        this.contentType = contentType;
        this.withTrailers = withTrailers;
        this.sentBytes = sentBytes;
        this.resetCode = resetCode;
        this.connectionError = connectionError;
        Thread.ofVirtual().start(this::accept);
    }

    /** Answers {@code bodyBytes} of {@link GeneratedBody#binary}, then trailers when {@code withTrailers}. */
    public static AnswerThenResetUpstream start(int bodyBytes, boolean withTrailers) {
        return new AnswerThenResetUpstream(GeneratedBody.binary(bodyBytes).bytes(), OCTETS, withTrailers, bodyBytes, 0);
    }

    /**
     * Sends the head and the first {@code sentBytes} of a {@code bodyBytes} answer (no END_STREAM), then
     * RST_STREAM with {@code resetCode} (0 NO_ERROR, 8 CANCEL): an answer cut short.
     */
    public static AnswerThenResetUpstream incomplete(int bodyBytes, int sentBytes, int resetCode) {
        if (sentBytes >= bodyBytes) {
            throw new IllegalArgumentException("an incomplete answer sends less than its body");
        }
        return new AnswerThenResetUpstream(
                GeneratedBody.binary(bodyBytes).bytes(), OCTETS, false, sentBytes, resetCode);
    }

    /**
     * A gRPC service's answer cut short: the head ({@code content-type: application/grpc}) and the first
     * {@code sentBytes} of {@code answer} (its length-prefixed messages), then RST_STREAM with {@code
     * resetCode}; never trailers.
     */
    public static AnswerThenResetUpstream grpcIncomplete(byte[] answer, int sentBytes, int resetCode) {
        if (sentBytes >= answer.length) {
            throw new IllegalArgumentException("an incomplete answer sends less than its body");
        }
        return new AnswerThenResetUpstream(answer.clone(), "application/grpc", false, sentBytes, resetCode);
    }

    /**
     * Sends the head and the first {@code sentBytes} of a {@code bodyBytes} answer (no END_STREAM), then
     * breaks HTTP/2 itself: a WINDOW_UPDATE of 0 on the connection, which the receiver must treat as a
     * connection error (RFC 9113 §6.9, PROTOCOL_ERROR). An upstream whose answer ends in a connection error.
     */
    public static AnswerThenResetUpstream connectionError(int bodyBytes, int sentBytes) {
        if (sentBytes >= bodyBytes) {
            throw new IllegalArgumentException("an incomplete answer sends less than its body");
        }
        return new AnswerThenResetUpstream(GeneratedBody.binary(bodyBytes).bytes(), OCTETS, false, sentBytes, 0, true);
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

    /** One answer still to send on {@code stream}: its DATA from {@code at}, then its end and the reset. */
    private static final class Pending {
        final int stream;
        long window;
        int at;

        Pending(int stream, long window) {
            this.stream = stream;
            this.window = window;
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            in.readFully(new byte[PREFACE.length]);
            out.write(H2Wire.frameBytes(H2Wire.SETTINGS, 0, 0, new byte[0]));
            long[] connectionWindow = {DEFAULT_WINDOW};
            long initialWindow = DEFAULT_WINDOW;
            java.util.Map<Integer, Pending> pending = new java.util.LinkedHashMap<>();
            while (true) {
                int length = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int stream = in.readInt() & 0x7FFFFFFF;
                byte[] payload = new byte[length];
                in.readFully(payload);
                ByteArrayOutputStream write = new ByteArrayOutputStream();
                switch (type) {
                    case H2Wire.SETTINGS -> {
                        if ((flags & ACK) == 0) {
                            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(payload);
                            while (b.remaining() >= 6) {
                                int id = b.getShort() & 0xFFFF;
                                long value = b.getInt() & 0xFFFFFFFFL;
                                if (id == H2Wire.SETTINGS_INITIAL_WINDOW_SIZE) { // applies to open streams too
                                    for (Pending p : pending.values()) {
                                        p.window += value - initialWindow;
                                    }
                                    initialWindow = value;
                                }
                            }
                            write.writeBytes(H2Wire.frameBytes(H2Wire.SETTINGS, ACK, 0, new byte[0]));
                        }
                    }
                    case H2Wire.PING -> {
                        if ((flags & ACK) == 0) {
                            write.writeBytes(H2Wire.frameBytes(H2Wire.PING, ACK, 0, payload));
                        }
                    }
                    case H2Wire.WINDOW_UPDATE -> {
                        long increment = java.nio.ByteBuffer.wrap(payload).getInt() & 0x7FFFFFFFL;
                        if (stream == 0) {
                            connectionWindow[0] += increment;
                        } else if (pending.containsKey(stream)) {
                            pending.get(stream).window += increment;
                        }
                    }
                    case H2Wire.HEADERS -> {
                        write.writeBytes(head(stream));
                        pending.put(stream, new Pending(stream, initialWindow));
                    }
                    case H2Wire.GOAWAY -> {
                        return;
                    }
                    default -> {
                        // DATA of a request body never read, PRIORITY, RST_STREAM: ignored
                    }
                }
                for (java.util.Iterator<Pending> i = pending.values().iterator(); i.hasNext(); ) {
                    if (send(i.next(), connectionWindow, write)) {
                        i.remove();
                    }
                }
                if (write.size() > 0) {
                    out.write(write.toByteArray());
                }
            }
        } catch (IOException e) {
            // the gateway closed the connection, or the upstream stops
        }
    }

    /** The answer's head on {@code stream}. */
    private byte[] head(int stream) {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        head.write(0x88); // :status 200 (static 8)
        head.writeBytes(H2Wire.literalField("content-type", contentType));
        return H2Wire.frameBytes(H2Wire.HEADERS, END_HEADERS, stream, head.toByteArray());
    }

    /**
     * Adds to {@code write} the DATA of {@code answer} the windows allow (taking it from them) and, once
     * its last DATA went, its trailers and the reset: true when the answer is all written.
     */
    private boolean send(Pending answer, long[] connectionWindow, ByteArrayOutputStream write) {
        boolean whole = sentBytes == bodyBytes;
        while (answer.at < sentBytes) {
            int n = (int)
                    Math.min(16_384, Math.min(sentBytes - answer.at, Math.min(answer.window, connectionWindow[0])));
            if (n <= 0) {
                return false; // waits for a WINDOW_UPDATE
            }
            boolean last = answer.at + n == sentBytes;
            byte[] chunk = java.util.Arrays.copyOfRange(body, answer.at, answer.at + n);
            write.writeBytes(H2Wire.frameBytes(
                    H2Wire.DATA, last && whole && !withTrailers ? H2Wire.END_STREAM : 0, answer.stream, chunk));
            answer.at += n;
            answer.window -= n;
            connectionWindow[0] -= n;
        }
        if (sentBytes == 0 && whole && !withTrailers) { // an empty body: one empty DATA ends the stream
            write.writeBytes(H2Wire.frameBytes(H2Wire.DATA, H2Wire.END_STREAM, answer.stream, new byte[0]));
        }
        if (withTrailers) {
            ByteArrayOutputStream trailers = new ByteArrayOutputStream();
            trailers.writeBytes(H2Wire.literalField("x-trailer", "yes"));
            write.writeBytes(H2Wire.frameBytes(
                    H2Wire.HEADERS, END_HEADERS | H2Wire.END_STREAM, answer.stream, trailers.toByteArray()));
        }
        if (connectionError) { // a WINDOW_UPDATE of 0 on the connection: PROTOCOL_ERROR
            write.writeBytes(H2Wire.frameBytes(H2Wire.WINDOW_UPDATE, 0, 0, new byte[4]));
            return true;
        }
        byte[] code = java.nio.ByteBuffer.allocate(4).putInt(resetCode).array();
        write.writeBytes(H2Wire.frameBytes(H2Wire.RST_STREAM, 0, answer.stream, code));
        return true;
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
