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
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.eclipse.jetty.http2.hpack.HpackException;

/**
 * HTTP/2 frames written and read by hand on a plain socket (h2c by prior knowledge), for what no
 * well-behaved client does: read the server's SETTINGS as sent, open and reset streams as fast as it
 * can (the rapid-reset attack), or send a header block that never ends (the CONTINUATION flood).
 * Requests carry a fixed HPACK block of static-table entries and literals, so no HPACK encoder is
 * needed.
 */
final class H2Wire implements AutoCloseable {

    static final int DATA = 0x0;
    static final int HEADERS = 0x1;
    static final int RST_STREAM = 0x3;
    static final int SETTINGS = 0x4;
    static final int PING = 0x6;
    static final int GOAWAY = 0x7;
    static final int WINDOW_UPDATE = 0x8;
    static final int CONTINUATION = 0x9;

    static final int END_STREAM = 0x1;

    static final long NO_ERROR = 0x0;
    static final long PROTOCOL_ERROR = 0x1;
    static final long FLOW_CONTROL_ERROR = 0x3;
    static final long STREAM_CLOSED = 0x5;
    static final long CANCEL = 0x8;
    static final long ENHANCE_YOUR_CALM = 0xB;

    static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;
    static final int SETTINGS_ENABLE_CONNECT_PROTOCOL = 0x8;

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /**
     * One frame as read: its type, flags, stream and payload; a HEADERS frame (with its CONTINUATIONs
     * folded in) also carries its header block decoded.
     */
    record Frame(int type, int flags, int stream, byte[] payload, MetaData head) {

        Frame(int type, int flags, int stream, byte[] payload) {
            this(type, flags, stream, payload, null);
        }

        boolean endsStream() {
            return (flags & END_STREAM) != 0;
        }

        /** A response HEADERS frame's status. */
        int status() {
            return ((MetaData.Response) head).getStatus();
        }

        /** A HEADERS frame's field, or null. */
        String header(String name) {
            return head.getHttpFields().get(name);
        }

        /** A RST_STREAM frame's error code. */
        long resetCode() {
            return ByteBuffer.wrap(payload).getInt() & 0xFFFFFFFFL;
        }

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
    /** What the connection's flow control lets DATA frames carry, as the server's WINDOW_UPDATEs read so far grant. */
    private long connectionWindow = 65_535;
    /** One per connection: HPACK's dynamic table spans the connection's header blocks. */
    private final HpackDecoder hpack = new HpackDecoder(1 << 20, System::nanoTime);

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
        frame(HEADERS, 0x4 | 0x1, stream, getBlock(authority, path));
    }

    /**
     * A GET of {@code path} on {@code stream} whose header block goes on: END_STREAM but no END_HEADERS,
     * so the head is whole only once a {@link #continuation} ends it.
     */
    void headersWithoutEnd(int stream, String authority, String path) throws IOException {
        frame(HEADERS, 0x1, stream, getBlock(authority, path));
    }

    /** A CONTINUATION frame of {@code fragment} on {@code stream}, ending its header block when {@code last}. */
    void continuation(int stream, byte[] fragment, boolean last) throws IOException {
        frame(CONTINUATION, last ? 0x4 : 0, stream, fragment);
    }

    /**
     * One header field as HPACK writes a literal without indexing and with a new name (RFC 7541 §6.2.2),
     * a whole field for a header block fragment.
     */
    static byte[] literalField(String name, String value) {
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        byte[] v = value.getBytes(StandardCharsets.US_ASCII);
        java.io.ByteArrayOutputStream field = new java.io.ByteArrayOutputStream();
        field.write(0x00);
        hpackLength(field, n.length);
        field.writeBytes(n);
        hpackLength(field, v.length);
        field.writeBytes(v);
        return field.toByteArray();
    }

    /** A string's length as an HPACK integer with a 7-bit prefix, no Huffman coding (RFC 7541 §5.1). */
    private static void hpackLength(java.io.ByteArrayOutputStream out, int length) {
        if (length < 0x7F) {
            out.write(length);
            return;
        }
        out.write(0x7F);
        for (int rest = length - 0x7F; ; rest >>>= 7) {
            if (rest < 0x80) {
                out.write(rest);
                return;
            }
            out.write((rest & 0x7F) | 0x80);
        }
    }

    private static byte[] getBlock(String authority, String path) {
        byte[] a = authority.getBytes(StandardCharsets.US_ASCII);
        byte[] p = path.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer block = ByteBuffer.allocate(8 + a.length + p.length);
        block.put((byte) 0x82); // :method GET (static 2)
        block.put((byte) 0x86); // :scheme http (static 6)
        block.put((byte) 0x04).put((byte) p.length).put(p); // :path (static 4), literal without indexing
        block.put((byte) 0x01).put((byte) a.length).put(a); // :authority (static 1), literal without indexing
        return java.util.Arrays.copyOf(block.array(), block.position());
    }

    /**
     * A POST of {@code path} on {@code stream} that declares {@code contentLength} body bytes: its head
     * only (END_HEADERS, the stream left open), so the body is whatever {@link #data} sends later.
     */
    void post(int stream, String authority, String path, long contentLength) throws IOException {
        byte[] a = authority.getBytes(StandardCharsets.US_ASCII);
        byte[] p = path.getBytes(StandardCharsets.US_ASCII);
        byte[] l = Long.toString(contentLength).getBytes(StandardCharsets.US_ASCII);
        ByteBuffer block = ByteBuffer.allocate(12 + a.length + p.length + l.length);
        block.put((byte) 0x83); // :method POST (static 3)
        block.put((byte) 0x86); // :scheme http (static 6)
        block.put((byte) 0x04).put((byte) p.length).put(p); // :path (static 4), literal without indexing
        block.put((byte) 0x01).put((byte) a.length).put(a); // :authority (static 1), literal without indexing
        block.put((byte) 0x0F).put((byte) 0x0D).put((byte) l.length).put(l); // content-length (static 28)
        frame(HEADERS, 0x4, stream, java.util.Arrays.copyOf(block.array(), block.position()));
    }

    /**
     * A request of {@code method} ({@code GET} or {@code POST}) for {@code path} on {@code stream} with
     * no content-length: its head only (END_HEADERS, the stream left open), so whether it has a body,
     * and how long, is told by the DATA frames that follow, the last with END_STREAM.
     */
    void openRequest(int stream, String method, String authority, String path) throws IOException {
        byte[] block = getBlock(authority, path);
        block[0] = switch (method) {
            case "GET" -> (byte) 0x82; // :method GET (static 2)
            case "POST" -> (byte) 0x83; // :method POST (static 3)
            default -> throw new IllegalArgumentException("method: " + method + " (expected: GET or POST)");
        };
        frame(HEADERS, 0x4, stream, block);
    }

    /**
     * Sends all of {@code body} on {@code stream} as DATA frames of at most 16,384 bytes, the last with
     * END_STREAM, within the server's flow-control windows: when they are spent it reads frames for
     * its WINDOW_UPDATEs (acknowledging SETTINGS and answering PINGs on the way). It stops early when
     * the server answers or resets the stream, or goes away.
     *
     * @return the frames of {@code stream} read meanwhile (its answer's HEADERS and DATA, a RST_STREAM)
     */
    java.util.List<Frame> upload(int stream, java.io.InputStream body) throws IOException {
        java.util.List<Frame> seen = new java.util.ArrayList<>();
        long streamWindow = 65_535; // the default; never more, whatever the server announces
        byte[] buffer = new byte[16_384];
        int pending = 0; // bytes read from body, not yet sent
        boolean ended = false;
        while (true) {
            if (pending == 0 && !ended) {
                pending = body.readNBytes(buffer, 0, buffer.length);
                ended = pending < buffer.length;
            }
            int n = (int) Math.min(pending, Math.min(connectionWindow, streamWindow));
            if (n > 0 || (pending == 0 && ended)) {
                boolean last = ended && n == pending;
                frame(DATA, last ? END_STREAM : 0, stream, java.util.Arrays.copyOf(buffer, n));
                System.arraycopy(buffer, n, buffer, 0, pending - n);
                pending -= n;
                streamWindow -= n;
                if (last) {
                    out.flush();
                    return seen;
                }
                continue;
            }
            out.flush();
            Frame frame = read().orElseThrow(() -> new EOFException("closed during the upload"));
            switch (frame.type()) {
                case WINDOW_UPDATE -> {
                    if (frame.stream() == stream) {
                        streamWindow += ByteBuffer.wrap(frame.payload()).getInt() & 0x7FFFFFFFL;
                    }
                }
                case SETTINGS -> {
                    if ((frame.flags() & 0x1) == 0) {
                        frame(SETTINGS, 0x1, 0, new byte[0]);
                    }
                }
                case PING -> {
                    if ((frame.flags() & 0x1) == 0) {
                        frame(PING, 0x1, 0, frame.payload());
                    }
                }
                case GOAWAY -> {
                    seen.add(frame);
                    return seen;
                }
                default -> {
                    if (frame.stream() == stream) {
                        seen.add(frame);
                        if (frame.type() == RST_STREAM || frame.endsStream()) {
                            return seen;
                        }
                    }
                }
            }
        }
    }

    /** A DATA frame of {@code bytes} on {@code stream}, ending it when {@code last}. */
    void data(int stream, byte[] bytes, boolean last) throws IOException {
        frame(DATA, last ? END_STREAM : 0, stream, bytes);
    }

    /**
     * A HEADERS frame of {@code block} (a whole header block: END_HEADERS) on {@code stream}, ending the
     * stream when {@code endStream}: for a head no well-behaved client sends.
     */
    void headers(int stream, byte[] block, boolean endStream) throws IOException {
        frame(HEADERS, 0x4 | (endStream ? END_STREAM : 0), stream, block);
    }

    /**
     * A header block of the fields given as name, value, name, value..., each a literal without indexing
     * with a new name ({@link #literalField}), pseudo-header fields included, in the order given.
     */
    static byte[] block(String... namesAndValues) {
        java.io.ByteArrayOutputStream block = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            block.writeBytes(literalField(namesAndValues[i], namesAndValues[i + 1]));
        }
        return block.toByteArray();
    }

    /** A PING frame of {@code data} (8 bytes), which the server answers with a PING of the same data, ACK set. */
    void ping(long data) throws IOException {
        frame(PING, 0, 0, ByteBuffer.allocate(8).putLong(data).array());
    }

    /** Resets {@code stream} with CANCEL. */
    void reset(int stream) throws IOException {
        frame(RST_STREAM, 0, stream, ByteBuffer.allocate(4).putInt(0x8).array());
    }

    /** How long a {@link #read} waits for the next byte before it throws SocketTimeoutException (20 s at first). */
    void timeout(java.time.Duration timeout) throws IOException {
        socket.setSoTimeout((int) timeout.toMillis());
    }

    /**
     * A HEADERS frame (END_HEADERS) of the given fields on {@code stream}, each written as an HPACK
     * literal with a new name (pseudo-headers too), so a test may leave any out or add any.
     */
    void headers(int stream, boolean endStream, String... namesAndValues) throws IOException {
        java.io.ByteArrayOutputStream block = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            block.writeBytes(literalField(namesAndValues[i], namesAndValues[i + 1]));
        }
        frame(HEADERS, 0x4 | (endStream ? END_STREAM : 0), stream, block.toByteArray());
    }

    /** A WINDOW_UPDATE frame of {@code increment} (written as given, 0 included) on {@code stream}. */
    void windowUpdate(int stream, long increment) throws IOException {
        frame(
                WINDOW_UPDATE,
                0,
                stream,
                ByteBuffer.allocate(4).putInt((int) increment).array());
    }

    void flush() throws IOException {
        out.flush();
    }

    /** One frame, written in one piece, so that the server does not read it in parts for want of the rest. */
    private void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        if (type == DATA) {
            connectionWindow -= payload.length;
        }
        out.write(frameBytes(type, flags, stream, payload));
    }

    /** A frame's bytes: its 9-byte header and {@code payload}. */
    static byte[] frameBytes(int type, int flags, int stream, byte[] payload) {
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

    /** The next frame, or empty when the server closed the connection. */
    Optional<Frame> read() throws IOException {
        try {
            int length = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
            int type = in.readUnsignedByte();
            int flags = in.readUnsignedByte();
            int stream = in.readInt() & 0x7FFFFFFF;
            byte[] payload = new byte[length];
            in.readFully(payload);
            if (type == WINDOW_UPDATE && stream == 0) {
                connectionWindow += ByteBuffer.wrap(payload).getInt() & 0x7FFFFFFFL;
            }
            if (type != HEADERS) {
                return Optional.of(new Frame(type, flags, stream, payload));
            }
            return Optional.of(headers(flags, stream, payload));
        } catch (EOFException | java.net.SocketException closed) {
            return Optional.empty();
        }
    }

    /** A HEADERS frame read whole: its CONTINUATIONs read, padding and priority dropped, its block decoded. */
    private Frame headers(int flags, int stream, byte[] payload) throws IOException {
        int from = 0;
        int to = payload.length;
        if ((flags & 0x8) != 0) { // PADDED
            from = 1;
            to -= payload[0] & 0xFF;
        }
        if ((flags & 0x20) != 0) { // PRIORITY
            from += 5;
        }
        java.io.ByteArrayOutputStream block = new java.io.ByteArrayOutputStream();
        block.write(payload, from, to - from);
        int endHeaders = flags & 0x4;
        while (endHeaders == 0) {
            Frame next = read().orElseThrow(() -> new EOFException("closed inside a header block"));
            if (next.type() != CONTINUATION || next.stream() != stream) {
                throw new IOException("a header block interrupted by frame type " + next.type());
            }
            block.write(next.payload());
            endHeaders = next.flags() & 0x4;
        }
        try {
            return new Frame(HEADERS, flags, stream, payload, hpack.decode(ByteBuffer.wrap(block.toByteArray())));
        } catch (HpackException e) {
            throw new IOException("an undecodable header block on stream " + stream, e);
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

    /** Leaves as a killed client does: the connection reset (TCP RST), not closed with a GOAWAY. */
    void abort() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
