package dev.sluice.tck;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An HTTP/1.1 request written byte for byte by {@link WireClient}: any header (Host, Connection and
 * other headers {@code java.net.http} refuses), a fixed-length or chunked body, generated as it is
 * written.
 */
public final class WireRequest {

    private final String method;
    private final String target;
    private final List<String> headerLines = new ArrayList<>();
    private byte[] body = new byte[0];
    private GeneratedBody generated;
    private int chunkSize; // 0: Content-Length framing

    private WireRequest(String method, String target) {
        this.method = requireNonNull(method, "method");
        this.target = requireNonNull(target, "target");
    }

    /** @param target the request target, {@code /path?query} */
    public static WireRequest of(String method, String target) {
        return new WireRequest(method, target);
    }

    public static WireRequest get(String target) {
        return new WireRequest("GET", target);
    }

    public WireRequest header(String name, String value) {
        headerLines.add(requireNonNull(name, "name") + ": " + requireNonNull(value, "value"));
        return this;
    }

    /** A fixed-length body. */
    public WireRequest body(byte[] bytes) {
        this.body = requireNonNull(bytes, "bytes").clone();
        this.generated = null;
        this.chunkSize = 0;
        return this;
    }

    /** A generated body, with Content-Length. */
    public WireRequest body(GeneratedBody generated) {
        this.generated = requireNonNull(generated, "generated");
        this.chunkSize = 0;
        return this;
    }

    /** A generated body, sent chunked in chunks of {@code chunkSize} bytes. */
    public WireRequest chunked(GeneratedBody generated, int chunkSize) {
        if (chunkSize <= 0) {
            throw new IllegalArgumentException("chunkSize: " + chunkSize + " (expected: > 0)");
        }
        this.generated = requireNonNull(generated, "generated");
        this.chunkSize = chunkSize;
        return this;
    }

    boolean hasHeader(String name) {
        String prefix = name.toLowerCase(Locale.ROOT) + ":";
        return headerLines.stream()
                .anyMatch(line -> line.toLowerCase(Locale.ROOT).startsWith(prefix));
    }

    /** Writes the head, then the body, to {@code out}; {@code defaultHost} when no Host was given. */
    void writeTo(OutputStream out, String defaultHost) throws IOException {
        StringBuilder head = new StringBuilder(256);
        head.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
        if (!hasHeader("host")) {
            head.append("Host: ").append(defaultHost).append("\r\n");
        }
        for (String line : headerLines) {
            head.append(line).append("\r\n");
        }
        long length = generated != null ? generated.length() : body.length;
        if (chunkSize > 0) {
            head.append("Transfer-Encoding: chunked\r\n");
        } else if (length > 0 || !(method.equals("GET") || method.equals("HEAD") || method.equals("DELETE"))) {
            head.append("Content-Length: ").append(length).append("\r\n");
        }
        head.append("\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (generated == null) {
            out.write(body);
        } else if (chunkSize == 0) {
            generated.writeRange(out, 0, generated.length());
        } else {
            for (long offset = 0; offset < generated.length(); offset += chunkSize) {
                long end = Math.min(generated.length(), offset + chunkSize);
                out.write((Long.toHexString(end - offset) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                generated.writeRange(out, offset, end);
                out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        }
        out.flush();
    }

    @Override
    public String toString() {
        return method + " " + target;
    }
}
