package dev.sluice.engine.blocking.upstream;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;

/**
 * A pool slot's response parser: Jetty's {@link HttpParser} (the parser Jetty's own client and server
 * use) reads the status line, the header fields and the chunked coding; this class keeps what it
 * reports for {@link ResponseReader} and {@link Http1Exchange}. One per {@link Http1Connection},
 * reset for every exchange, so its field cache and buffers are reused.
 *
 * <p>Every callback that hands something over stops the parse ({@code true}), so the exchange reads
 * the head, then each piece of chunk data, before the parser goes on. Content-Length and close-delimited
 * bodies never pass through the parser: once the head is read the exchange reads them straight from
 * the socket into the caller's array, as many bytes as the head said.
 */
final class ResponseParser implements HttpParser.ResponseHandler {

    /**
     * RFC 9110 parsing, plus whitespace between a field name and its colon, which RFC 9112 section 5.1
     * tells a proxy to remove from a response rather than refuse.
     */
    private static final HttpCompliance COMPLIANCE =
            HttpCompliance.RFC9110.with("SLUICE_UPSTREAM", HttpCompliance.Violation.WHITESPACE_AFTER_FIELD_NAME);

    private final HttpParser parser;
    private int status;
    private int major;
    private int minor;
    private String[] headers = new String[32]; // name, value, name, value...
    private int headerCount;
    private boolean headerComplete;
    private boolean messageComplete;
    private ByteBuffer content; // chunk data the parser handed over, not yet read
    private String bad; // why the parser refused the message, or null

    ResponseParser(int maxHeadBytes) {
        this.parser = new HttpParser(this, maxHeadBytes, COMPLIANCE);
    }

    /** Ready for the next response; {@code head}: it answers a HEAD request (no body, whatever it says). */
    void reset(boolean head) {
        parser.reset();
        parser.setHeadResponse(head);
        status = 0;
        major = 1;
        minor = 1;
        headerCount = 0;
        headerComplete = false;
        messageComplete = false;
        content = null;
        bad = null;
    }

    /**
     * Parses from {@code buffer} until the parser hands something over or needs more bytes.
     *
     * @return whether it handed something over (the head, chunk data, the end of the message)
     */
    boolean parse(ByteBuffer buffer) {
        try {
            return parser.parseNext(buffer);
        } catch (AssertionError refused) {
            // Jetty 12.1.14 reports a failure it did not expect while parsing a response (a malformed
            // field it could not convert) as an HttpException coded with the response's own status,
            // whose constructor asserts a 4xx or 5xx code: with assertions on (the tests, the fuzzer)
            // that assertion, not badMessage, is how the parser refuses the response. Without them it
            // calls badMessage; either way the response is refused, never relayed.
            if (bad == null) {
                bad = "malformed response";
            }
            buffer.position(buffer.limit());
            return false;
        }
    }

    /** The stream ended: lets the parser report what that means (an early EOF, or a close-delimited end). */
    void atEof(ByteBuffer buffer) {
        parser.atEOF();
        parse(buffer);
    }

    int status() {
        return status;
    }

    int major() {
        return major;
    }

    int minor() {
        return minor;
    }

    int headerCount() {
        return headerCount;
    }

    String headerName(int i) {
        return headers[2 * i];
    }

    String headerValue(int i) {
        return headers[2 * i + 1];
    }

    /** Whether the status line and the header fields have been read. */
    boolean headRead() {
        return headerComplete;
    }

    /** Whether the message ended (the last chunk and any trailer read). */
    boolean ended() {
        return messageComplete;
    }

    /** Whether the parser has not read a byte of this response yet. */
    boolean atStart() {
        return parser.isStart();
    }

    boolean chunked() {
        return parser.isChunking();
    }

    /** The body's Content-Length, or -1. */
    long contentLength() {
        return parser.getContentLength();
    }

    /** Chunk data handed over and not yet read, or null. */
    ByteBuffer content() {
        return content;
    }

    void contentRead() {
        if (content != null && !content.hasRemaining()) {
            content = null;
        }
    }

    /** Why the parser refused the response, or null. */
    String bad() {
        return bad;
    }

    @Override
    public void startResponse(HttpVersion version, int status, String reason) {
        this.status = status;
        this.major = version.getVersion() / 10;
        this.minor = version.getVersion() % 10;
    }

    @Override
    public void parsedHeader(HttpField field) {
        if (2 * headerCount + 2 > headers.length) {
            headers = Arrays.copyOf(headers, headers.length * 2);
        }
        headers[2 * headerCount] = field.getName();
        headers[2 * headerCount + 1] = field.getValue() == null ? "" : field.getValue();
        headerCount++;
    }

    @Override
    public boolean headerComplete() {
        headerComplete = true;
        return true;
    }

    @Override
    public boolean content(ByteBuffer data) {
        content = data;
        return true;
    }

    @Override
    public boolean contentComplete() {
        return false;
    }

    @Override
    public boolean messageComplete() {
        messageComplete = true;
        return true;
    }

    @Override
    public void earlyEOF() {
        if (bad == null) {
            bad = headerComplete ? "body ended inside the chunk framing" : "connection closed inside the response head";
        }
    }

    @Override
    public void badMessage(HttpException failure) {
        if (bad == null) {
            bad = failure.getReason() == null ? "malformed response" : failure.getReason();
        }
    }
}
