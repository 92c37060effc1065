package dev.sluice.engine.blocking.upstream;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP server on 127.0.0.1 whose every connection follows a script the test gives: read a
 * request head, answer exact bytes, keep the connection or close it. For the wire behaviour a real
 * HTTP server never shows on demand (a close while idle, a truncated body, a malformed head), and
 * to see exactly what the client wrote. It records each request head with the connection it came
 * on, the bytes each connection received, and whether the client closed it.
 */
final class ScriptedUpstream implements AutoCloseable {

    /** What the server does on one accepted connection; the connection is closed when it returns. */
    @FunctionalInterface
    interface Script {
        void serve(Conn conn) throws Exception;
    }

    /** A request head the server read, and the connection (in accept order, from 0) it came on. */
    record Seen(int connection, String head) {}

    /** Longest the server waits for the client on one read: a stuck test ends, it never hangs. */
    private static final int SERVER_READ_TIMEOUT_MILLIS = 15_000;

    private final ServerSocket server;
    private final Script script;
    private final AtomicInteger accepted = new AtomicInteger();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final Map<Integer, AtomicLong> received = new ConcurrentHashMap<>();
    private final Map<Integer, Boolean> clientClosed = new ConcurrentHashMap<>();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Semaphore finished = new Semaphore(0);

    private ScriptedUpstream(ServerSocket server, Script script) {
        this.server = server;
        this.script = script;
    }

    static ScriptedUpstream start(Script script) {
        try {
            ScriptedUpstream upstream =
                    new ScriptedUpstream(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), script);
            Thread.ofVirtual().name("scripted-upstream").start(upstream::acceptLoop);
            return upstream;
        } catch (IOException e) {
            throw new UncheckedIOException("scripted upstream: could not listen on 127.0.0.1", e);
        }
    }

    /** Connection {@code i} runs {@code scripts[i]}; connections past the last run the last one. */
    static Script perConnection(Script... scripts) {
        return conn -> scripts[Math.min(conn.index(), scripts.length - 1)].serve(conn);
    }

    /** Answers every request on the connection with {@code response}, until the client closes it. */
    static Script keepAnswering(String response) {
        return conn -> {
            while (conn.readHead() != null) {
                conn.write(response);
            }
        };
    }

    /**
     * Answers the requests in the order they come, on whatever connection: the k-th request gets
     * {@code responses[k]} (the last one again past the end). Connections stay open until the client
     * closes them.
     */
    static Script answerInTurn(String... responses) {
        AtomicInteger next = new AtomicInteger();
        return conn -> {
            while (conn.readHead() != null) {
                conn.write(responses[Math.min(next.getAndIncrement(), responses.length - 1)]);
            }
        };
    }

    /** Answers one request with {@code response}, then closes the connection. */
    static Script answerOnceThenClose(String response) {
        return conn -> {
            if (conn.readHead() != null) {
                conn.write(response);
            }
        };
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** Connections accepted so far. */
    int accepted() {
        return accepted.get();
    }

    /** Every request head read, in order, each with its connection. */
    List<Seen> seen() {
        return List.copyOf(seen);
    }

    List<String> heads() {
        return seen.stream().map(Seen::head).toList();
    }

    /** The connections the recorded requests came on, in order. */
    List<Integer> connectionsOfRequests() {
        return seen.stream().map(Seen::connection).toList();
    }

    /** Bytes connection {@code i} received from the client, head and body. */
    long received(int connection) {
        AtomicLong n = received.get(connection);
        return n == null ? 0 : n.get();
    }

    /** Whether the client ended connection {@code i} (EOF or reset seen by the server). */
    boolean clientClosed(int connection) {
        return clientClosed.getOrDefault(connection, false);
    }

    /** Failures of the scripts other than the client going away: a test can check there were none. */
    List<Throwable> failures() {
        return List.copyOf(failures);
    }

    /** Waits until {@code connections} scripts (in all) have returned and closed their connection. */
    boolean awaitFinished(int connections, Duration timeout) throws InterruptedException {
        if (finished.tryAcquire(connections, timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            finished.release(connections);
            return true;
        }
        return false;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            int index = accepted.getAndIncrement();
            sockets.add(socket);
            received.put(index, new AtomicLong());
            Thread.ofVirtual().name("scripted-upstream-" + index).start(() -> run(socket, index));
        }
    }

    private void run(Socket socket, int index) {
        try (socket) {
            socket.setSoTimeout(SERVER_READ_TIMEOUT_MILLIS);
            script.serve(new Conn(socket, index));
        } catch (SocketException e) {
            clientClosed.put(index, true); // the client reset the connection
        } catch (Exception | AssertionError e) {
            failures.add(e);
        } finally {
            finished.release();
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing a test server
        }
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a test connection
            }
        }
    }

    /** One accepted connection, as its script sees it. */
    final class Conn {

        private final Socket socket;
        private final int index;
        private final InputStream in;
        private final OutputStream out;

        private Conn(Socket socket, int index) throws IOException {
            this.socket = socket;
            this.index = index;
            AtomicLong count = received.get(index);
            InputStream raw = new FilterInputStream(socket.getInputStream()) {
                @Override
                public int read() throws IOException {
                    int b = super.read();
                    if (b >= 0) {
                        count.incrementAndGet();
                    }
                    return b;
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    int n = super.read(b, off, len);
                    if (n > 0) {
                        count.addAndGet(n);
                    }
                    return n;
                }
            };
            this.in = new BufferedInputStream(raw);
            this.out = socket.getOutputStream();
        }

        /** This connection's number, in accept order from 0. */
        int index() {
            return index;
        }

        /**
         * Reads one request head (up to and including its blank line) and records it.
         *
         * @return the head, or null when the client closed the connection before a first byte
         */
        String readHead() throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    clientClosed.put(index, true);
                    if (head.size() == 0) {
                        return null;
                    }
                    throw new EOFException("client closed inside a request head: " + head.toString(ISO_8859_1));
                }
                head.write(b);
                matched = b == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : (b == '\r' ? 1 : 0);
            }
            String text = head.toString(ISO_8859_1);
            seen.add(new Seen(index, text));
            return text;
        }

        /** Reads exactly {@code n} body bytes. */
        byte[] readBytes(int n) throws IOException {
            byte[] bytes = in.readNBytes(n);
            if (bytes.length < n) {
                throw new EOFException("client sent " + bytes.length + " of " + n + " body bytes");
            }
            return bytes;
        }

        /** Reads a chunked body strictly (size lines in hex, CRLF after each chunk, no trailers) and returns it decoded. */
        byte[] readChunked() throws IOException {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                String line = line();
                if (line.isEmpty() || !line.matches("[0-9a-fA-F]+")) {
                    throw new IOException("invalid chunk size line '" + line + "'");
                }
                int size = Integer.parseInt(line, 16);
                if (size == 0) {
                    String end = line();
                    if (!end.isEmpty()) {
                        throw new IOException("trailer or garbage after the last chunk: '" + end + "'");
                    }
                    return body.toByteArray();
                }
                body.write(readBytes(size));
                String crlf = line();
                if (!crlf.isEmpty()) {
                    throw new IOException("chunk data longer than its size");
                }
            }
        }

        /** One CRLF-terminated line, without the CRLF; a bare LF is an error. */
        private String line() throws IOException {
            StringBuilder line = new StringBuilder();
            while (true) {
                int b = in.read();
                if (b < 0) {
                    throw new EOFException("client closed inside a chunked body");
                }
                if (b == '\n') {
                    if (line.isEmpty() || line.charAt(line.length() - 1) != '\r') {
                        throw new IOException("bare LF in chunk framing");
                    }
                    return line.substring(0, line.length() - 1);
                }
                line.append((char) b);
            }
        }

        void write(String ascii) throws IOException {
            write(ascii.getBytes(ISO_8859_1));
        }

        void write(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }

        /**
         * Waits for the client to close this connection, without reading a request.
         *
         * @return true when it did (EOF or reset), false when a byte came or the wait timed out
         */
        boolean awaitClientClose(Duration timeout) throws IOException {
            int before = socket.getSoTimeout();
            socket.setSoTimeout((int) timeout.toMillis());
            try {
                boolean closed = in.read() < 0;
                if (closed) {
                    clientClosed.put(index, true);
                }
                return closed;
            } catch (SocketTimeoutException e) {
                return false;
            } catch (SocketException e) {
                clientClosed.put(index, true);
                return true;
            } finally {
                if (!socket.isClosed()) {
                    socket.setSoTimeout(before);
                }
            }
        }

        /** Lets the client read what was written before the script returns and the connection closes. */
        void pause(Duration duration) throws InterruptedException {
            Thread.sleep(duration);
        }
    }

    /** The request heads seen, for assertion messages. */
    @Override
    public String toString() {
        List<String> lines = new ArrayList<>();
        for (Seen s : seen) {
            lines.add(s.connection() + ": " + s.head().lines().findFirst().orElse(""));
        }
        return "ScriptedUpstream" + lines;
    }
}
