package dev.sluice.compress;

import java.nio.ByteBuffer;

/**
 * One response body, encoded as it streams: {@link #encode} takes each buffer the engine would have
 * written and returns what to write instead; with {@code flush}, everything given so far can be
 * decoded by the client, so a composition's first part reaches it before a slow part answers.
 * {@link #finish} ends the body. Not thread-safe: one response, one writer at a time.
 *
 * <p>The returned buffer wraps an array the encoder reuses: it is valid until the next call, which
 * is how both engines write (the blocking one waits for each write; the reactive one copies).
 * {@link #close} frees the encoder's native memory at once.
 */
public sealed interface ResponseEncoder extends AutoCloseable permits GzipEncoder, ZstdEncoder {

    /**
     * Encodes all of {@code input} (its position is left as it was).
     *
     * @param flush whether what was given so far must reach the client now
     * @return the bytes to write in its place; may be empty when nothing is flushed
     */
    ByteBuffer encode(ByteBuffer input, boolean flush);

    /** {@link #encode(ByteBuffer, boolean)} on an array. */
    default ByteBuffer encode(byte[] input, int offset, int count, boolean flush) {
        return encode(ByteBuffer.wrap(input, offset, count), flush);
    }

    /** Encodes {@code input}, the body's last bytes, and ends the body. */
    ByteBuffer finish(ByteBuffer input);

    /** Whether {@link #finish} has been called. */
    boolean isFinished();

    /** Frees the encoder's native memory. */
    @Override
    void close();
}
