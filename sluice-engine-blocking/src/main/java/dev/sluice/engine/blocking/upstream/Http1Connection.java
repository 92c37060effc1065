package dev.sluice.engine.blocking.upstream;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.tls.UpstreamTls;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLSocket;

/**
 * One pool slot of {@link Http1UpstreamClient}: a socket to the upstream when open (an {@link
 * SSLSocket} layered over it for an https upstream, whose streams the exchange reads and writes as a
 * plain socket's), with its read buffer. Only the thread holding the slot reads and writes; {@link #close()} may come from any
 * thread (an abort) and wakes a blocked read.
 */
final class Http1Connection {

    /** Read buffer: a response head must fit in it; body bytes beyond it are read straight into the caller's array. */
    static final int BUFFER = 8 * 1024;

    /** The largest response head accepted. */
    static final int HEAD_LIMIT = dev.sluice.http.ResponseHeadCheck.MAX_HEAD_BYTES;

    private final UpstreamConfig config;
    private final UpstreamTls tls; // null for http
    private volatile Socket socket;
    private volatile Socket raw; // the TCP socket under an SSLSocket; null for http
    private long openedAt;
    private InputStream in;
    private OutputStream out;
    byte[] buffer;
    int pos;
    int limit;
    private long idleSince;
    private ResponseParser parser;
    private RequestWriter writer;
    private ResponseReader reader;

    /**
     * When the read now blocked began ({@link System#nanoTime()}), 0 between reads, {@link #EXPIRED}
     * once the client's watchdog ({@link #expireRead}) took it for timed out. Reads wait without a
     * socket timeout: a virtual thread parked with one costs a task on the JDK's delay scheduler per
     * blocked read (scheduled, then cancelled when the bytes come), which a profile of the virtual
     * engine's composition put at a sixth of the gateway's CPU.
     */
    private final AtomicLong reading = new AtomicLong();

    private static final long EXPIRED = Long.MIN_VALUE;

    Http1Connection(UpstreamConfig config, UpstreamTls tls) {
        this.config = config;
        this.tls = tls;
    }

    /** When the current connection was opened ({@link System#nanoTime()}): for {@code max-lifetime}. */
    long openedAt() {
        return openedAt;
    }

    boolean isOpen() {
        return socket != null;
    }

    long idleSince() {
        return idleSince;
    }

    /** The slot's response parser, made on first use and reset by every exchange. */
    ResponseParser parser() {
        if (parser == null) {
            parser = new ResponseParser(HEAD_LIMIT + 4 * BUFFER); // the exchange counts the real limit
        }
        return parser;
    }

    /** The slot's request writer, made on first use. */
    RequestWriter writer() {
        if (writer == null) {
            writer = new RequestWriter(this);
        }
        return writer;
    }

    /** The slot's response reader (over {@link #parser()}), made on first use. */
    ResponseReader reader() {
        if (reader == null) {
            reader = new ResponseReader(this, parser());
        }
        return reader;
    }

    /**
     * The TCP socket of the current connection, or null: under TLS the one below the {@link SSLSocket},
     * so that closing it (an abort, a stalled write) wakes a blocked read or write at once.
     */
    Socket socket() {
        Socket under = raw;
        return under != null ? under : socket;
    }

    /** Back in the pool after a clean exchange (nothing buffered beyond it). */
    void markIdle() {
        idleSince = System.nanoTime();
        pos = 0;
        limit = 0;
    }

    void connect() throws IOException {
        Socket s = new Socket();
        Socket under = null;
        try {
            s.setTcpNoDelay(true);
            s.setKeepAlive(true);
            try {
                s.connect(new InetSocketAddress(config.host(), config.port()), (int)
                        Math.max(1, config.connectTimeout().toMillis()));
            } catch (SocketTimeoutException e) {
                throw new ConnectTimeout(e);
            }
            if (tls != null) {
                under = s;
                s = handshake(s);
            }
            s.setSoTimeout(0); // read-timeout: the client's watchdog (expireRead)
            in = s.getInputStream();
            out = s.getOutputStream();
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
        openedAt = System.nanoTime();
        if (buffer == null || buffer.length != BUFFER) {
            buffer = new byte[BUFFER];
        }
        pos = 0;
        limit = 0;
        reading.set(0);
        raw = under;
        socket = s;
    }

    /** TLS over {@code connected}, its handshake done within connect-timeout (the socket's read timeout meanwhile). */
    private SSLSocket handshake(Socket connected) throws IOException {
        SSLSocket s = tls.layer(connected, config.host(), config.port());
        try {
            s.setSoTimeout((int) Math.max(
                    1, Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis())));
            s.startHandshake();
            return s;
        } catch (SocketTimeoutException e) {
            s.close();
            throw new ConnectTimeout(e);
        } catch (IOException e) {
            s.close();
            throw new TlsHandshakeFailed(e);
        }
    }

    /**
     * For a connection idle a while: false when the upstream closed it (or sent something unasked).
     * Waits at most a millisecond.
     */
    boolean stillOpen() {
        Socket s = socket;
        if (s == null || pos < limit) {
            return false;
        }
        try {
            s.setSoTimeout(1);
            try {
                in.read(buffer, 0, 1);
                return false; // the end of the stream, or a byte nobody asked for: not reusable either way
            } catch (SocketTimeoutException quiet) {
                return true;
            } finally {
                s.setSoTimeout(0);
            }
        } catch (IOException e) {
            return false;
        }
    }

    OutputStream out() {
        return out;
    }

    /**
     * Reads more bytes into the buffer after {@code limit}, compacting first when needed.
     *
     * @return false at the end of the stream
     */
    boolean fill() throws IOException {
        if (limit == buffer.length) {
            if (pos > 0) {
                System.arraycopy(buffer, pos, buffer, 0, limit - pos);
                limit -= pos;
                pos = 0;
            } else {
                if (buffer.length >= HEAD_LIMIT) {
                    throw new BadResponse("response head or chunk line larger than " + HEAD_LIMIT + " bytes");
                }
                buffer = java.util.Arrays.copyOf(buffer, Math.min(HEAD_LIMIT, buffer.length * 2));
            }
        }
        int n = receive(buffer, limit, buffer.length - limit);
        if (n < 0) {
            return false;
        }
        limit += n;
        return true;
    }

    /**
     * One read from the socket, timed by the client's watchdog: a read it found blocked for
     * read-timeout fails with a {@link SocketTimeoutException}, as a socket timeout would.
     */
    private int receive(byte[] target, int offset, int length) throws IOException {
        long since = System.nanoTime();
        if (since == 0 || since == EXPIRED) {
            since = 1;
        }
        reading.set(since);
        int n;
        try {
            n = in.read(target, offset, length);
        } catch (IOException e) {
            if (!reading.compareAndSet(since, 0)) {
                throw readTimedOut(e);
            }
            throw e;
        }
        if (!reading.compareAndSet(since, 0)) { // the watchdog is closing the socket under it
            throw readTimedOut(null);
        }
        return n;
    }

    private static SocketTimeoutException readTimedOut(IOException cause) {
        SocketTimeoutException timedOut = new SocketTimeoutException("Read timed out");
        if (cause != null) {
            timedOut.initCause(cause);
        }
        return timedOut;
    }

    /**
     * The watchdog's check, on the client's sweeper thread: a read blocked for {@code timeoutNanos}
     * or longer is ended by closing its socket, and fails as timed out. The read is claimed first
     * (compare-and-set of its start), so a read that already returned is never ended, nor a later
     * one on the slot.
     */
    void expireRead(long timeoutNanos) {
        long since = reading.get();
        if (since == 0 || since == EXPIRED || System.nanoTime() - since < timeoutNanos) {
            return;
        }
        Socket s = socket(); // the blocked read's: the slot holder changes it only between reads
        if (reading.compareAndSet(since, EXPIRED) && s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing a socket we are dropping: nothing to report
            }
        }
    }

    /** Reads body bytes: buffered ones first, then straight from the socket into {@code target}. */
    int read(byte[] target, int offset, int length) throws IOException {
        int buffered = limit - pos;
        if (buffered > 0) {
            int n = Math.min(buffered, length);
            System.arraycopy(buffer, pos, target, offset, n);
            pos += n;
            return n;
        }
        pos = 0;
        limit = 0;
        if (length < DIRECT_READ) { // small reads (chunk framing around tiny chunks) go through the buffer
            if (!fill()) {
                return -1;
            }
            return read(target, offset, length);
        }
        return receive(target, offset, length);
    }

    /** Reads at least this many bytes straight from the socket into the caller's array. */
    static final int DIRECT_READ = 512;

    /** With nothing buffered: reads from the socket straight into {@code target}; -1 at the end of the stream. */
    int readRaw(byte[] target, int offset, int length) throws IOException {
        pos = 0;
        limit = 0;
        return receive(target, offset, length);
    }

    /** Bytes readable now without blocking: buffered ones, else what the socket holds. */
    int available() {
        int buffered = limit - pos;
        if (buffered > 0) {
            return buffered;
        }
        try {
            InputStream stream = in;
            return stream == null ? 0 : stream.available();
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * Drops the socket; safe from any thread, wakes a read blocked on it. The buffer stays for the
     * slot's next connection.
     */
    void close() {
        Socket s = socket;
        socket = null;
        Socket under = raw;
        raw = null;
        if (under != null) {
            try {
                under.close(); // first: a close_notify could wait behind a blocked write, this wakes it
            } catch (IOException ignored) {
                // closing a socket we are dropping: nothing to report
            }
        }
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing a socket we are dropping: nothing to report
            }
        }
    }

    /** Connecting took longer than connect-timeout. */
    static final class ConnectTimeout extends IOException {
        ConnectTimeout(SocketTimeoutException cause) {
            super("connect timeout", cause);
        }
    }

    /** An https upstream's TLS handshake failed: its certificate refused, ours refused, no common protocol. */
    static final class TlsHandshakeFailed extends IOException {
        TlsHandshakeFailed(IOException cause) {
            super("TLS handshake failed: " + cause.getMessage(), cause);
        }
    }

    /** The upstream's answer is not valid HTTP/1.1. */
    static final class BadResponse extends IOException {
        BadResponse(String message) {
            super(message);
        }
    }

    /** The connection was closed or reset before any byte of an answer. */
    static final class StaleConnection extends IOException {
        StaleConnection(IOException cause) {
            super("pooled connection closed by the upstream", cause);
        }
    }

    /** The body ended before its declared length or its last chunk. */
    static final class Truncated extends EOFException {
        Truncated(String message) {
            super(message);
        }
    }
}
