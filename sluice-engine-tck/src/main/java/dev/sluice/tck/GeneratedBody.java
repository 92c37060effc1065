package dev.sluice.tck;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Deterministic bodies of any length, generated as they are written and never held whole.
 *
 * <p>{@link #binary} bodies use every byte value; {@link #json} bodies are one JSON string, {@code
 * "..."}, of lower-case letters, so they can be spliced into a composition. Both are aperiodic at
 * buffer sizes, so a duplicated, dropped or reordered buffer changes the digest.
 */
public final class GeneratedBody {

    private static final int BUFFER = 64 * 1024;

    private final long length;
    private final boolean json;

    private GeneratedBody(long length, boolean json) {
        if (length < 0 || (json && length < 2)) {
            throw new IllegalArgumentException("length: " + length + " (expected: >= " + (json ? 2 : 0) + ")");
        }
        this.length = length;
        this.json = json;
    }

    /** {@code length} bytes of every value. */
    public static GeneratedBody binary(long length) {
        return new GeneratedBody(length, false);
    }

    /** A JSON string literal of {@code length} bytes, quotes included ({@code length >= 2}). */
    public static GeneratedBody json(long length) {
        return new GeneratedBody(length, true);
    }

    public long length() {
        return length;
    }

    /** The byte at {@code offset}. */
    public byte at(long offset) {
        if (json && (offset == 0 || offset == length - 1)) {
            return '"';
        }
        return fromWord(mix(offset >>> 3), (int) (offset & 7));
    }

    /** Fills {@code buffer[0, count)} with the bytes from {@code offset}. */
    public void fill(long offset, byte[] buffer, int count) {
        int i = 0;
        while (i < count) {
            long position = offset + i;
            long word = mix(position >>> 3);
            for (int k = (int) (position & 7); k < 8 && i < count; k++, i++) {
                buffer[i] = fromWord(word, k);
            }
        }
        if (json) {
            if (offset == 0 && count > 0) {
                buffer[0] = '"';
            }
            long last = length - 1 - offset;
            if (last >= 0 && last < count) {
                buffer[(int) last] = '"';
            }
        }
    }

    private byte fromWord(long word, int index) {
        int b = (int) (word >>> (index << 3)) & 0xff;
        return json ? (byte) ('a' + b % 26) : (byte) b;
    }

    /** A 64-bit mix (SplitMix64's finaliser): eight bytes per word, aperiodic. */
    private static long mix(long word) {
        long h = (word + 1) * 0x9E3779B97F4A7C15L;
        h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
        h = (h ^ (h >>> 27)) * 0x94D049BB133111EBL;
        return h ^ (h >>> 31);
    }

    /** The whole body in an array (for small bodies). */
    public byte[] bytes() {
        if (length > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("length: " + length + " (expected: small enough for an array)");
        }
        byte[] all = new byte[(int) length];
        fill(0, all, all.length);
        return all;
    }

    /**
     * Writes bytes {@code [from, to)} to {@code out}, flushing each buffer.
     *
     * @return the number of bytes written
     */
    public long writeRange(OutputStream out, long from, long to) throws IOException {
        byte[] buffer = new byte[BUFFER];
        long offset = from;
        while (offset < to) {
            int n = (int) Math.min(buffer.length, to - offset);
            fill(offset, buffer, n);
            out.write(buffer, 0, n);
            offset += n;
        }
        out.flush();
        return to - from;
    }

    /** The SHA-256 of the whole body, in lower-case hex (computed once per kind and length). */
    public String sha256() {
        return DIGESTS.computeIfAbsent((json ? "json:" : "binary:") + length, k -> digest());
    }

    private static final Map<String, String> DIGESTS = new ConcurrentHashMap<>();

    private String digest() {
        MessageDigest digest = sha256Digest();
        byte[] buffer = new byte[BUFFER];
        for (long offset = 0; offset < length; offset += buffer.length) {
            int n = (int) Math.min(buffer.length, length - offset);
            fill(offset, buffer, n);
            digest.update(buffer, 0, n);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /** The body as a stream, generated as it is read. */
    public InputStream stream() {
        return new InputStream() {
            private long offset;

            @Override
            public int read() {
                return offset < length ? at(offset++) & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (len == 0) {
                    return 0;
                }
                if (offset >= length) {
                    return -1;
                }
                int n = (int) Math.min(len, length - offset);
                if (off == 0) {
                    fill(offset, b, n);
                } else {
                    byte[] part = new byte[n];
                    fill(offset, part, n);
                    System.arraycopy(part, 0, b, off, n);
                }
                offset += n;
                return n;
            }
        };
    }

    static MessageDigest sha256Digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 (expected: available in every JDK)", e);
        }
    }

    /** The SHA-256 of {@code bytes}, in lower-case hex. */
    public static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(sha256Digest().digest(bytes));
    }
}
