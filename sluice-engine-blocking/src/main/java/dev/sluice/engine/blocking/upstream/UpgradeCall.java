package dev.sluice.engine.blocking.upstream;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.http.ResponseHeadCheck;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.http.WebSocketUpgrade;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A WebSocket upgrade request ({@link WebSocketUpgrade}) on a connection of its own, outside the
 * upstream's pool: a connection that switches protocols is never an HTTP connection again. After
 * {@link #open} the answer's head is read; a {@code 101} hands over its socket and any bytes that
 * arrived behind the head ({@link #switched}, {@link #socket}, {@link #early}); any other answer is
 * an ordinary {@link UpstreamResponse} whose body is read by its framing, and the connection is
 * closed with it.
 */
public final class UpgradeCall implements UpstreamResponse {

    private final String upstream;
    private final Socket socket;
    private final InputStream in;
    private final ResponseParser parser = new ResponseParser(Http1Connection.HEAD_LIMIT + 4 * Http1Connection.BUFFER);
    private byte[] buffer = new byte[Http1Connection.BUFFER];
    private int pos;
    private int limit;
    private boolean switched;
    private long contentLength = -1; // a refusal's, as the core frames it

    private UpgradeCall(String upstream, Socket socket) throws IOException {
        this.upstream = upstream;
        this.socket = socket;
        this.in = socket.getInputStream();
    }

    /**
     * Connects, writes the request (a GET: no body) and reads the answer's head, with the upstream's
     * connect and read timeouts.
     */
    public static UpgradeCall open(UpstreamConfig config, UpstreamRequest request) throws UpstreamException {
        byte[] head;
        try {
            head = RequestWriter.detachedHead(request, config.authority()); // refused before any connection
        } catch (RequestWriter.RefusedHead e) {
            throw new UpstreamException(UpstreamFailure.RESET, config.name(), e); // as a pooled request's
        }
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            try {
                socket.connect(new InetSocketAddress(config.host(), config.port()), (int)
                        Math.max(1, config.connectTimeout().toMillis()));
            } catch (SocketTimeoutException e) {
                throw new UpstreamException(UpstreamFailure.CONNECT_TIMEOUT, config.name(), e);
            }
            socket.setSoTimeout((int)
                    Math.max(1, Math.min(Integer.MAX_VALUE, config.readTimeout().toMillis())));
            UpgradeCall call = new UpgradeCall(config.name(), socket);
            socket.getOutputStream().write(head);
            call.readHead();
            return call;
        } catch (UpstreamException e) {
            close(socket);
            throw e;
        } catch (IOException | RuntimeException e) {
            close(socket);
            throw new UpstreamException(classify(e), config.name(), e);
        }
    }

    private static UpstreamFailure classify(Exception e) {
        if (e instanceof Http1Connection.BadResponse) {
            return UpstreamFailure.BAD_RESPONSE;
        }
        UpstreamFailure failure = UpstreamFailure.ofJdk(e); // the core's reading of the JDK's types
        return failure != null ? failure : UpstreamFailure.RESET;
    }

    private void readHead() throws IOException {
        parser.reset(false);
        while (true) {
            while (!parser.headRead()) {
                if (!advance()) {
                    throw new Http1Connection.BadResponse(
                            parser.bad() != null ? parser.bad() : "connection closed before the response head");
                }
            }
            String code = ResponseHeadCheck.statusProblem(parser.status()); // an interim head's too
            if (code != null) {
                throw new Http1Connection.BadResponse(code);
            }
            if (!WebSocketUpgrade.skipped(parser.status())) {
                break;
            }
            parser.reset(false); // 100 or 103: the real answer follows
        }
        ResponseHeadCheck check = new ResponseHeadCheck();
        List<String> upgrade = new ArrayList<>();
        for (int i = 0; i < parser.headerCount(); i++) {
            check.header(parser.headerName(i), parser.headerValue(i));
            if (WebSocketUpgrade.upgradeHeader(parser.headerName(i))) {
                upgrade.add(parser.headerValue(i));
            }
        }
        String refusal = WebSocketUpgrade.switchProblem(parser.status(), upgrade);
        if (refusal != null) {
            throw new Http1Connection.BadResponse(refusal);
        }
        if (WebSocketUpgrade.switched(parser.status(), upgrade)) {
            switched = true;
            return;
        }
        String problem = check.verdict(parser.major(), parser.minor(), parser.status());
        if (problem != null) {
            throw new Http1Connection.BadResponse(problem);
        }
        ResponseHeadCheck.Framing framing = check.framing(false, parser.status());
        contentLength = framing == ResponseHeadCheck.Framing.NONE
                ? 0
                : framing == ResponseHeadCheck.Framing.LENGTH ? check.contentLength() : -1;
    }

    /** Feeds the parser, reading more when it needs more; false when the stream ended first. */
    private boolean advance() throws IOException {
        while (true) {
            ByteBuffer view = ByteBuffer.wrap(buffer, pos, limit - pos);
            boolean handed = parser.parse(view);
            pos = view.position();
            if (parser.bad() != null) {
                throw new Http1Connection.BadResponse(parser.bad());
            }
            if (handed) {
                return true;
            }
            if (!fill()) {
                view = ByteBuffer.wrap(buffer, pos, limit - pos);
                parser.atEof(view);
                pos = view.position();
                return parser.ended();
            }
        }
    }

    private boolean fill() throws IOException {
        if (pos == limit) {
            pos = 0;
            limit = 0;
        } else if (limit == buffer.length) {
            if (pos > 0) {
                System.arraycopy(buffer, pos, buffer, 0, limit - pos);
                limit -= pos;
                pos = 0;
            } else if (buffer.length < Http1Connection.HEAD_LIMIT) {
                buffer = Arrays.copyOf(buffer, Math.min(Http1Connection.HEAD_LIMIT, buffer.length * 2));
            } else {
                throw new Http1Connection.BadResponse(
                        "response head larger than " + Http1Connection.HEAD_LIMIT + " bytes");
            }
        }
        int n = in.read(buffer, limit, buffer.length - limit);
        if (n < 0) {
            return false;
        }
        limit += n;
        return true;
    }

    /** Whether the upstream switched to WebSocket: the tunnel takes {@link #socket} and {@link #early}. */
    public boolean switched() {
        return switched;
    }

    /** The connection, for the tunnel after a {@code 101}; its read timeout is the caller's to change. */
    public Socket socket() {
        return socket;
    }

    /** Bytes that arrived behind the {@code 101}'s head: the tunnel's first bytes towards the client. */
    public byte[] early() {
        ByteArrayOutputStream early = new ByteArrayOutputStream();
        early.write(buffer, pos, limit - pos);
        pos = limit;
        return early.toByteArray();
    }

    @Override
    public int status() {
        return parser.status();
    }

    @Override
    public int headerCount() {
        return parser.headerCount();
    }

    @Override
    public String headerName(int i) {
        return parser.headerName(i);
    }

    @Override
    public String headerValue(int i) {
        return parser.headerValue(i);
    }

    @Override
    public long contentLength() {
        return switched ? -1 : contentLength;
    }

    /** A refusal's body, by its framing (Jetty's parser decodes each kind); -1 at its end. */
    @Override
    public int read(byte[] target, int offset, int length) throws UpstreamException {
        try {
            while (true) {
                ByteBuffer content = parser.content();
                if (content != null && content.hasRemaining()) {
                    int n = Math.min(length, content.remaining());
                    content.get(target, offset, n);
                    parser.contentRead();
                    return n;
                }
                if (parser.ended()) {
                    return -1;
                }
                if (!advance() && !parser.ended()) {
                    throw new Http1Connection.Truncated(
                            parser.bad() != null ? parser.bad() : "the answer ended before its body");
                }
            }
        } catch (IOException e) {
            close();
            throw new UpstreamException(classify(e), upstream, e);
        }
    }

    @Override
    public void abort() {
        close();
    }

    @Override
    public void close() {
        close(socket);
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // dropping the connection: nothing to report
        }
    }
}
