package dev.sluice.tck;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * HTTP/2 frames written and read by hand on a plain socket (h2c by prior knowledge), for what no
 * well-behaved client does: read the server's SETTINGS as sent, or open and reset streams as fast as
 * it can (the rapid-reset attack). Requests carry a fixed HPACK block of static-table entries and
 * literals, so no HPACK encoder is needed.
 */
final class H2Wire implements AutoCloseable {

    static final int DATA = 0x0;
    static final int HEADERS = 0x1;
    static final int RST_STREAM = 0x3;
    static final int SETTINGS = 0x4;
    static final int GOAWAY = 0x7;

    static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** One frame as read: its type, flags, stream and payload. */
    record Frame(int type, int flags, int stream, byte[] payload) {

        /** A SETTINGS frame's parameters by identifier. */
        Map<Integer, Long> settings() {
            Map<Integer, Long> settings = new LinkedHashMap<>();
            ByteBuffer b = ByteBuffer.wrap(payload);
            while (b.remaining() >= 6) {
                settings.put(b.getShort() & 0xFFFF, b.getInt() & 0xFFFFFFFFL);
            }
            return settings;
        }

        /** A GOAWAY frame's error code. */
        long errorCode() {
            return ByteBuffer.wrap(payload, 4, 4).getInt() & 0xFFFFFFFFL;
        }
    }

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;

    private H2Wire(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = new DataInputStream(socket.getInputStream());
    }

    /** Connects to {@code 127.0.0.1:port} and sends the client preface and an empty SETTINGS frame. */
    static H2Wire connect(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(20_000);
        H2Wire wire = new H2Wire(socket);
        wire.out.write(PREFACE);
        wire.frame(SETTINGS, 0, 0, new byte[0]);
        wire.out.flush();
        return wire;
    }

    /** A GET of {@code path} on {@code stream} (odd, rising), its head only: END_HEADERS, END_STREAM. */
    void get(int stream, String authority, String path) throws IOException {
        byte[] a = authority.getBytes(StandardCharsets.US_ASCII);
        byte[] p = path.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer block = ByteBuffer.allocate(8 + a.length + p.length);
        block.put((byte) 0x82); // :method GET (static 2)
        block.put((byte) 0x86); // :scheme http (static 6)
        block.put((byte) 0x04).put((byte) p.length).put(p); // :path (static 4), literal without indexing
        block.put((byte) 0x01).put((byte) a.length).put(a); // :authority (static 1), literal without indexing
        frame(HEADERS, 0x4 | 0x1, stream, java.util.Arrays.copyOf(block.array(), block.position()));
    }

    /** Resets {@code stream} with CANCEL. */
    void reset(int stream) throws IOException {
        frame(RST_STREAM, 0, stream, ByteBuffer.allocate(4).putInt(0x8).array());
    }

    void flush() throws IOException {
        out.flush();
    }

    private void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        out.write(new byte[] {
            (byte) (payload.length >>> 16),
            (byte) (payload.length >>> 8),
            (byte) payload.length,
            (byte) type,
            (byte) flags
        });
        out.write(ByteBuffer.allocate(4).putInt(stream & 0x7FFFFFFF).array());
        out.write(payload);
    }

    /** The next frame, or empty when the server closed the connection. */
    Optional<Frame> read() throws IOException {
        try {
            int length = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
            int type = in.readUnsignedByte();
            int flags = in.readUnsignedByte();
            int stream = in.readInt() & 0x7FFFFFFF;
            byte[] payload = new byte[length];
            in.readFully(payload);
            return Optional.of(new Frame(type, flags, stream, payload));
        } catch (EOFException | java.net.SocketException closed) {
            return Optional.empty();
        }
    }

    /** The frames up to the first of {@code type}, that one included; empty when the connection closed first. */
    Optional<Frame> readUntil(int type) throws IOException {
        for (Optional<Frame> f = read(); f.isPresent(); f = read()) {
            if (f.get().type() == type) {
                return f;
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
