package dev.sluice.engine.blocking.upstream;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import dev.sluice.engine.blocking.upstream.Http1Connection.BadResponse;
import dev.sluice.engine.blocking.upstream.Http1Connection.StaleConnection;
import dev.sluice.engine.blocking.upstream.Http1Connection.Truncated;
import dev.sluice.http.ResponseHeadCheck;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One request and its response on a pooled {@link Http1Connection}: writes the request (head,
 * then the body with its framing), parses the response head strictly, then hands out body bytes
 * by Content-Length, chunked coding or up to the close. The connection goes back to the pool the
 * moment the body's last byte is read, or is dropped on any failure or early close.
 */
final class Http1Exchange implements UpstreamResponse {

    private static final int ACTIVE = 0;
    private static final int ABORTED = 1;
    private static final int RELEASED = 2;

    private enum Framing {
        NONE,
        LENGTH,
        CHUNKED,
        CLOSE
    }

    private static final byte[] HTTP11 = " HTTP/1.1\r\n".getBytes(ISO_8859_1);
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(ISO_8859_1);

    private final Http1UpstreamClient client;
    private final Http1Connection connection;
    private final UpstreamRequest request;
    private final Socket socket;
    private final AtomicInteger state = new AtomicInteger(ACTIVE);

    private int status;
    private String[] headers = new String[32]; // name, value, name, value...
    private int headerCount;
    private Framing framing;
    private long contentLength = -1;
    private long left; // LENGTH: bytes still to come; CHUNKED: bytes left in the current chunk
    private boolean chunkCrlf; // CHUNKED: a chunk's data ended, its CRLF is still to be read
    private int lineStart; // where the last line() began in the connection's buffer
    private boolean reusable;
    private boolean ended;
    private int minor; // the response's HTTP/1.x minor version
    private volatile long bodyWritten; // request body bytes written, for the watchdog
    private volatile boolean writing; // blocked in a socket write (not waiting for the client's body)
    private volatile boolean writeStalled; // the watchdog closed the socket
    private long lastChecked = -1; // the watchdog's own state (one thread)

    Http1Exchange(Http1UpstreamClient client, Http1Connection connection, UpstreamRequest request) {
        this.client = client;
        this.connection = connection;
        this.request = request;
        this.socket = connection.socket();
    }

    /**
     * Sends the request and reads the response head.
     *
     * @throws StaleConnection when the connection failed before any byte of an answer
     */
    void start() throws IOException {
        try {
            int before = connection.limit;
            try {
                try {
                    writeRequest();
                } catch (IOException e) {
                    if (!answeredEarly(e)) {
                        throw e;
                    }
                }
                if (status == 0) {
                    readHead();
                }
            } catch (BadResponse | RefusedHead | SocketTimeoutException e) {
                throw e;
            } catch (IOException e) {
                if (connection.limit == before && status == 0 && !request.isCancelled()) {
                    throw new StaleConnection(e);
                }
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            state.set(RELEASED); // the caller drops the connection; a later cancel must not touch the slot
            throw e;
        }
        if (framing == Framing.NONE || (framing == Framing.LENGTH && left == 0)) {
            finish();
        }
    }

    /**
     * Whether the upstream answered before it read the whole request body (RFC 9112 section 9.3 allows
     * it: a 405, 413 or 401 to an upload) and then stopped reading, so that writing the body failed:
     * the answer is read and relayed, and the connection, its request cut short, is never reused. A
     * failure to read the client's own body, a stalled write and a cancelled call are not that.
     */
    private boolean answeredEarly(IOException writeFailure) {
        if (!writing || writeStalled || request.isCancelled() || writeFailure instanceof SocketTimeoutException) {
            return false;
        }
        writing = false;
        try {
            readHead();
        } catch (IOException | RuntimeException noAnswer) {
            writeFailure.addSuppressed(noAnswer);
            status = 0;
            return false;
        }
        reusable = false;
        return true;
    }

    private void writeRequest() throws IOException {
        byte[] head = connection.buffer;
        int n = 0;
        n = ascii(head, n, request.method());
        head[n++] = ' ';
        n = ascii(head, n, request.target());
        n = bytes(head, n, HTTP11);
        boolean host = false;
        for (int i = 0, count = request.headerCount(); i < count; i++) {
            String name = request.headerName(i);
            host |= name.equalsIgnoreCase("host");
            n = field(head, n, name, request.headerValue(i));
            head = connection.buffer;
        }
        if (!host) {
            n = field(head, n, "Host", client.config().authority());
            head = connection.buffer;
        }
        InputStream body = request.body();
        long length = request.contentLength();
        if (body != null) {
            n = length >= 0
                    ? field(head, n, "Content-Length", Long.toString(length))
                    : field(head, n, "Transfer-Encoding", "chunked");
            head = connection.buffer;
        }
        n = room(n, 2);
        head = connection.buffer;
        head[n++] = '\r';
        head[n++] = '\n';
        OutputStream out = connection.out();
        out.write(head, 0, n);
        if (body != null) {
            ScheduledFuture<?> watchdog = client.everyReadTimeout(this::checkWriteProgress);
            try {
                writeBody(out, body, length);
            } catch (IOException e) {
                if (writeStalled) {
                    throw new SocketTimeoutException("the upstream read none of the request body for read-timeout");
                }
                throw e;
            } finally {
                watchdog.cancel(false);
            }
        }
    }

    /**
     * The watchdog's check, on the sweeper thread: when a write is blocked and no body byte was written
     * since the last check (a whole read-timeout), the upstream stopped reading; the socket is closed
     * to end the write. Waiting for the client's own body bytes does not count.
     */
    private void checkWriteProgress() {
        long now = bodyWritten;
        if (writing && now == lastChecked && !writeStalled) {
            writeStalled = true;
            try {
                socket.close();
            } catch (IOException ignored) {
                // the write fails either way
            }
        }
        lastChecked = now;
    }

    private void writeBody(OutputStream out, InputStream body, long length) throws IOException {
        byte[] buffer = connection.buffer;
        if (length >= 0) {
            long sent = 0;
            while (sent < length) {
                int n = body.read(buffer, 0, (int) Math.min(buffer.length, length - sent));
                if (n < 0) {
                    throw new IOException("request body ended after " + sent + " of " + length + " bytes");
                }
                writing = true;
                out.write(buffer, 0, n);
                writing = false;
                sent += n;
                bodyWritten = sent;
            }
            return;
        }
        int prefix = 10; // hex size (at most 4 digits for this buffer) and CRLF, written before the data
        while (true) {
            int n = body.read(buffer, prefix, buffer.length - prefix - 2);
            if (n < 0) {
                out.write(LAST_CHUNK);
                return;
            }
            if (n == 0) {
                continue;
            }
            String size = Integer.toHexString(n);
            int start = prefix - size.length() - 2;
            size.getBytes(0, size.length(), buffer, start);
            buffer[prefix - 2] = '\r';
            buffer[prefix - 1] = '\n';
            buffer[prefix + n] = '\r';
            buffer[prefix + n + 1] = '\n';
            writing = true;
            out.write(buffer, start, prefix + n + 2 - start);
            writing = false;
            bodyWritten += n;
        }
    }

    private int room(int n, int more) {
        if (n + more > connection.buffer.length) {
            connection.buffer = Arrays.copyOf(connection.buffer, Math.max(connection.buffer.length * 2, n + more));
        }
        return n;
    }

    private int field(byte[] head, int n, String name, String value) throws IOException {
        n = room(n, name.length() + value.length() + 4);
        head = connection.buffer;
        n = ascii(head, n, name);
        head[n++] = ':';
        head[n++] = ' ';
        n = ascii(head, n, value);
        head[n++] = '\r';
        head[n++] = '\n';
        return n;
    }

    private int ascii(byte[] head, int n, String s) throws IOException {
        n = room(n, s.length());
        head = connection.buffer;
        for (int i = 0, len = s.length(); i < len; i++) {
            char c = s.charAt(i);
            if (c == '\r' || c == '\n' || c == 0) {
                throw new RefusedHead();
            }
            head[n++] = (byte) c;
        }
        return n;
    }

    /** A CR, LF or NUL in the request head: nothing is sent, the connection stays sound. */
    static final class RefusedHead extends IOException {
        RefusedHead() {
            super("CR, LF or NUL in the request head: refused");
        }
    }

    private int bytes(byte[] head, int n, byte[] b) {
        n = room(n, b.length);
        System.arraycopy(b, 0, connection.buffer, n, b.length);
        return n + b.length;
    }

    /** Reads the response head, skipping interim (1xx) responses, and decides the body's framing. */
    private void readHead() throws IOException {
        while (true) {
            int end = headEnd();
            parseHead(end);
            if (status >= 200) {
                break;
            }
            if (status == 101) {
                throw new BadResponse("101 Switching Protocols to a request that asked for no upgrade");
            }
            headerCount = 0; // interim response: the real one follows
            status = 0;
        }
        ResponseHeadCheck check = new ResponseHeadCheck();
        for (int i = 0; i < headerCount; i++) {
            check.header(headers[2 * i], headers[2 * i + 1]);
        }
        String problem = check.verdict(1, minor, status);
        if (problem != null) {
            throw new BadResponse(problem);
        }
        frame();
    }

    /** Index just past the blank line ending the head in the connection's buffer, reading as needed. */
    private int headEnd() throws IOException {
        int scan = connection.pos;
        while (true) {
            byte[] b = connection.buffer;
            for (int i = scan; i < connection.limit; i++) {
                if (b[i] == '\n') {
                    // the blank line: LF right after the previous LF, or after CR following it
                    if (i > connection.pos
                            && (b[i - 1] == '\n' || (b[i - 1] == '\r' && i - 1 > connection.pos && b[i - 2] == '\n'))) {
                        return i + 1;
                    }
                }
            }
            if (connection.limit - connection.pos >= 5) {
                int p = connection.pos;
                if (b[p] != 'H' || b[p + 1] != 'T' || b[p + 2] != 'T' || b[p + 3] != 'P' || b[p + 4] != '/') {
                    throw new BadResponse("not an HTTP/1.x status line"); // no need to wait for the rest of it
                }
            }
            int consumed = connection.pos;
            scan = connection.limit;
            if (!connection.fill()) {
                if (connection.limit == connection.pos) {
                    throw new java.io.EOFException("connection closed before the response");
                }
                throw new BadResponse("connection closed inside the response head");
            }
            scan -= consumed - connection.pos; // fill may have compacted the buffer
        }
    }

    private void parseHead(int end) throws IOException {
        byte[] b = connection.buffer;
        int p = connection.pos;
        // status line: HTTP/1.x SP 3DIGIT [SP reason] EOL
        if (end - p < 12
                || b[p] != 'H'
                || b[p + 1] != 'T'
                || b[p + 2] != 'T'
                || b[p + 3] != 'P'
                || b[p + 4] != '/'
                || b[p + 5] != '1'
                || b[p + 6] != '.'
                || (b[p + 7] != '0' && b[p + 7] != '1')
                || b[p + 8] != ' '
                || !digit(b[p + 9])
                || !digit(b[p + 10])
                || !digit(b[p + 11])
                || !(b[p + 12] == ' ' || b[p + 12] == '\r' || b[p + 12] == '\n')) {
            throw new BadResponse("not an HTTP/1.x status line");
        }
        boolean http10 = b[p + 7] == '0';
        minor = http10 ? 0 : 1;
        status = (b[p + 9] - '0') * 100 + (b[p + 10] - '0') * 10 + (b[p + 11] - '0');
        if (status < 100) {
            throw new BadResponse("status " + status);
        }
        p = lineEnd(b, p, end);
        boolean close = http10;
        while (true) {
            int eol = lineEnd(b, p, end);
            int lf = eol - 1;
            int lineStop = lf > p && b[lf - 1] == '\r' ? lf - 1 : lf;
            if (lineStop == p) {
                connection.pos = eol;
                break;
            }
            if (b[p] == ' ' || b[p] == '\t') {
                throw new BadResponse("folded header line");
            }
            int nameEnd = p;
            while (nameEnd < lineStop && token(b[nameEnd])) {
                nameEnd++;
            }
            int colon = nameEnd;
            while (colon < lineStop && (b[colon] == ' ' || b[colon] == '\t')) {
                colon++; // RFC 9112 section 5.1: a proxy removes whitespace before the colon
            }
            if (nameEnd == p || colon == lineStop || b[colon] != ':') {
                throw new BadResponse("malformed header line");
            }
            int v = colon + 1;
            while (v < lineStop && (b[v] == ' ' || b[v] == '\t')) {
                v++;
            }
            int ve = lineStop;
            while (ve > v && (b[ve - 1] == ' ' || b[ve - 1] == '\t')) {
                ve--;
            }
            for (int i = v; i < ve; i++) {
                if (b[i] == 0 || b[i] == '\r' || b[i] == '\n') {
                    throw new BadResponse("control character in a header value");
                }
            }
            String name = new String(b, p, nameEnd - p, ISO_8859_1);
            String value = new String(b, v, ve - v, ISO_8859_1);
            addHeader(name, value);
            if (name.equalsIgnoreCase("connection")) {
                if (http10) {
                    close &= !hasToken(value, "keep-alive");
                } else {
                    close |= hasToken(value, "close");
                }
            }
            p = eol;
        }
        reusable = !close;
    }

    private static int lineEnd(byte[] b, int p, int end) {
        while (p < end && b[p] != '\n') {
            p++;
        }
        return p + 1;
    }

    private void addHeader(String name, String value) {
        if (2 * headerCount + 2 > headers.length) {
            headers = Arrays.copyOf(headers, headers.length * 2);
        }
        headers[2 * headerCount] = name;
        headers[2 * headerCount + 1] = value;
        headerCount++;
    }

    /** RFC 9112 section 6.3: how the body is delimited. */
    private void frame() throws IOException {
        String transferEncoding = null;
        long length = -1;
        for (int i = 0; i < headerCount; i++) {
            String name = headers[2 * i];
            if (name.equalsIgnoreCase("transfer-encoding")) {
                transferEncoding =
                        transferEncoding == null ? headers[2 * i + 1] : transferEncoding + "," + headers[2 * i + 1];
            } else if (name.equalsIgnoreCase("content-length")) {
                length = contentLength(headers[2 * i + 1], length);
            }
        }
        if (request.method().equals("HEAD") || status == 204 || status == 304) {
            framing = Framing.NONE;
            contentLength = 0;
        } else if (transferEncoding != null) {
            String last = transferEncoding
                    .substring(transferEncoding.lastIndexOf(',') + 1)
                    .trim();
            framing = last.equalsIgnoreCase("chunked") ? Framing.CHUNKED : Framing.CLOSE;
            if (length >= 0 || framing == Framing.CLOSE) {
                reusable = false; // both framings at once smell of smuggling: never reuse this connection
            }
        } else if (length >= 0) {
            framing = Framing.LENGTH;
            contentLength = length;
            left = length;
        } else {
            framing = Framing.CLOSE;
            reusable = false;
        }
    }

    /** One Content-Length value (possibly a list of equal values), agreeing with any seen before. */
    private static long contentLength(String value, long seen) throws BadResponse {
        long result = seen;
        for (String part : value.split(",", -1)) {
            String digits = part.trim();
            if (digits.isEmpty() || digits.length() > 18) {
                throw new BadResponse("invalid Content-Length '" + value + "'");
            }
            long n = 0;
            for (int i = 0; i < digits.length(); i++) {
                char c = digits.charAt(i);
                if (c < '0' || c > '9') {
                    throw new BadResponse("invalid Content-Length '" + value + "'");
                }
                n = n * 10 + (c - '0');
            }
            if (result >= 0 && result != n) {
                throw new BadResponse("conflicting Content-Length values");
            }
            result = n;
        }
        return result;
    }

    private static boolean hasToken(String value, String token) {
        for (String part : value.split(",")) {
            if (part.trim().equalsIgnoreCase(token)) {
                return true;
            }
        }
        return false;
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    /** RFC 9110 tchar. */
    private static boolean token(byte c) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            return true;
        }
        return switch (c) {
            case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~' -> true;
            default -> false;
        };
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public int headerCount() {
        return headerCount;
    }

    @Override
    public String headerName(int i) {
        return headers[2 * i];
    }

    @Override
    public String headerValue(int i) {
        return headers[2 * i + 1];
    }

    @Override
    public long contentLength() {
        return contentLength;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws UpstreamException {
        if (ended) {
            return -1;
        }
        if (state.get() != ACTIVE) {
            throw client.classify(new java.net.SocketException("aborted"), request);
        }
        if (length == 0) {
            return 0;
        }
        try {
            return switch (framing) {
                case LENGTH -> readLength(buffer, offset, length);
                case CHUNKED -> readChunked(buffer, offset, length);
                default -> readToClose(buffer, offset, length);
            };
        } catch (IOException | RuntimeException e) {
            fail();
            throw client.classify(e, request);
        }
    }

    @Override
    public int available() {
        if (ended || state.get() != ACTIVE || (framing == Framing.LENGTH && left == 0)) {
            return 0;
        }
        int n = connection.available();
        return framing == Framing.LENGTH ? (int) Math.min(n, left) : n;
    }

    private int readLength(byte[] buffer, int offset, int length) throws IOException {
        int n = connection.read(buffer, offset, (int) Math.min(length, left));
        if (n < 0) {
            throw new Truncated("body ended " + left + " bytes short of its Content-Length");
        }
        left -= n;
        if (left == 0) {
            finish();
        }
        return n;
    }

    private int readChunked(byte[] buffer, int offset, int length) throws IOException {
        while (left == 0) {
            if (chunkCrlf) {
                if (line() != 0) {
                    throw new BadResponse("chunk data longer than its size");
                }
                chunkCrlf = false;
            }
            long size = chunkSize();
            if (size == 0) {
                while (line() != 0) {
                    // trailer fields: not relayed (the gateway's response is already committed)
                }
                finish();
                return -1;
            }
            left = size;
        }
        int n = connection.read(buffer, offset, (int) Math.min(length, left));
        if (n < 0) {
            throw new Truncated("body ended inside a chunk");
        }
        left -= n;
        if (left == 0) {
            chunkCrlf = true;
        }
        return n;
    }

    /** Reads one line from the buffer; returns its length without CRLF (the text stays before {@code pos}). */
    private int line() throws IOException {
        while (true) {
            byte[] b = connection.buffer;
            for (int i = connection.pos; i < connection.limit; i++) {
                if (b[i] == '\n') {
                    int start = connection.pos;
                    connection.pos = i + 1;
                    int stop = i > start && b[i - 1] == '\r' ? i - 1 : i;
                    lineStart = start;
                    return stop - start;
                }
            }
            if (!connection.fill()) {
                throw new Truncated("body ended inside the chunk framing");
            }
        }
    }

    private long chunkSize() throws IOException {
        int length = line();
        byte[] b = connection.buffer;
        long size = 0;
        int digits = 0;
        for (int i = lineStart; i < lineStart + length; i++) {
            int c = b[i];
            int d = c >= '0' && c <= '9'
                    ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) {
                if (digits > 0 && (c == ';' || c == ' ' || c == '\t')) {
                    break; // chunk extensions: ignored
                }
                throw new BadResponse("invalid chunk size line");
            }
            if (++digits > 15) {
                throw new BadResponse("chunk size too large");
            }
            size = size * 16 + d;
        }
        if (digits == 0) {
            throw new BadResponse("invalid chunk size line");
        }
        return size;
    }

    private int readToClose(byte[] buffer, int offset, int length) throws IOException {
        int n = connection.read(buffer, offset, length);
        if (n < 0) {
            finish();
        }
        return n;
    }

    /** The body was read to its end: the connection goes back to the pool (or is dropped) now. */
    private void finish() {
        ended = true;
        if (state.compareAndSet(ACTIVE, RELEASED)) {
            boolean clean = connection.pos == connection.limit; // bytes beyond the response: not reusable
            client.release(connection, reusable && clean);
        }
    }

    private void fail() {
        int s = state.getAndSet(RELEASED);
        if (s != RELEASED) {
            client.release(connection, false);
        }
    }

    @Override
    public void abort() {
        if (state.compareAndSet(ACTIVE, ABORTED)) {
            try {
                socket.close(); // this exchange's socket, not whatever the slot holds later
            } catch (IOException ignored) {
                // dropped either way
            }
        }
    }

    @Override
    public void close() {
        int s = state.getAndSet(RELEASED);
        if (s != RELEASED) {
            client.release(connection, false);
        }
    }
}
