package dev.sluice.transcode;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads gRPC length-prefixed messages from a response body as its chunks arrive: holds at most one
 * message's bytes at a time, and refuses a message longer than the bound before buffering any of it
 * (RESOURCE_EXHAUSTED), or one marked compressed (the gateway asks for none: it sends no {@code
 * grpc-accept-encoding}).
 */
public final class GrpcFrames {

    private final int maxMessage;
    private final byte[] prefix = new byte[5];
    private int prefixRead;
    private byte[] message;
    private int messageRead;

    public GrpcFrames(int maxMessage) {
        this.maxMessage = maxMessage;
    }

    /** The messages this chunk completes, in order (often none or one). */
    public List<byte[]> feed(ByteBuffer chunk) throws TranscodeException {
        List<byte[]> done = new ArrayList<>(1);
        while (chunk.hasRemaining()) {
            if (message == null) {
                int n = Math.min(5 - prefixRead, chunk.remaining());
                chunk.get(prefix, prefixRead, n);
                prefixRead += n;
                if (prefixRead < 5) {
                    break;
                }
                if (prefix[0] != 0) {
                    throw new TranscodeException(13, "the upstream sent a compressed or unknown gRPC message");
                }
                long length = ByteBuffer.wrap(prefix, 1, 4).getInt() & 0xffffffffL;
                if (length > maxMessage) {
                    throw new TranscodeException(
                            8, "a response message of " + length + " bytes is over the bound of " + maxMessage);
                }
                message = new byte[(int) length];
                messageRead = 0;
            }
            int n = Math.min(message.length - messageRead, chunk.remaining());
            chunk.get(message, messageRead, n);
            messageRead += n;
            if (messageRead == message.length) {
                done.add(message);
                message = null;
                prefixRead = 0;
            }
        }
        return done;
    }

    /** Whether the body ended between messages (a cut message is a failure). */
    public boolean atBoundary() {
        return message == null && prefixRead == 0;
    }
}
