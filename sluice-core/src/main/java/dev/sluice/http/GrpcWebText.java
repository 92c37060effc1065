package dev.sluice.http;

import java.nio.ByteBuffer;
import java.util.Base64;

/**
 * gRPC-Web's text mode ({@code application/grpc-web-text}): the body is base64 (the standard
 * alphabet), decoded and encoded as it streams, with bounded state.
 *
 * <p>{@link Decoder} takes the request body in pieces split anywhere, reads it in 4-character
 * groups carried across pieces (at most 3 characters and one 24-bit group held), and allows a
 * padded group ({@code xx==}, {@code xxx=}) wherever a group ends, as gRPC-Web clients pad each
 * message; an unpadded last group of 2 or 3 characters is taken, as {@link Base64#getDecoder()}
 * takes it. Anything else (a character outside the alphabet, {@code =} too early, data after
 * {@code =} in a group, a stream ending inside padding or after one character) is {@link
 * Malformed}. {@link #encode} encodes one piece of a response, padded, so that every byte that
 * arrived goes out at once.
 */
public final class GrpcWebText {

    private GrpcWebText() {}

    /** The text body is not base64 as gRPC-Web sends it. */
    public static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    private static final byte[] VALUES = new byte[128];

    static {
        java.util.Arrays.fill(VALUES, (byte) -1);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (int i = 0; i < alphabet.length(); i++) {
            VALUES[alphabet.charAt(i)] = (byte) i;
        }
    }

    /** One piece of a response, base64 with its padding. */
    public static ByteBuffer encode(ByteBuffer piece) {
        return Base64.getEncoder().encode(piece);
    }

    /** A streaming decoder for one request body. */
    public static final class Decoder {
        private int group; // the group's 6-bit values so far
        private int chars; // characters of the group so far, '=' included (0..3)
        private int pads; // '=' in the group so far
        private boolean failed;

        /** Decodes the next piece ({@code in} is read to its end); the bytes of its completed groups. */
        public ByteBuffer decode(ByteBuffer in) throws Malformed {
            byte[] out = new byte[(chars + in.remaining()) / 4 * 3];
            int n = 0;
            while (in.hasRemaining()) {
                int c = in.get() & 0xff;
                if (failed) {
                    throw new Malformed("gRPC-Web text after a malformed group");
                }
                if (c == '=') {
                    if (chars < 2) {
                        throw fail("'=' too early in a base64 group");
                    }
                    pads++;
                } else {
                    int v = c < 128 ? VALUES[c] : -1;
                    if (v < 0) {
                        throw fail("a byte outside base64's alphabet");
                    }
                    if (pads > 0) {
                        throw fail("base64 data after '=' in a group");
                    }
                    group = group << 6 | v;
                }
                if (++chars == 4) {
                    n = flush(out, n, 4 - pads);
                }
            }
            return ByteBuffer.wrap(out, 0, n);
        }

        /** The body ended: the bytes of an unpadded last group (2 or 3 characters), if any. */
        public ByteBuffer finish() throws Malformed {
            if (failed) {
                throw new Malformed("gRPC-Web text after a malformed group");
            }
            if (chars == 0) {
                return ByteBuffer.allocate(0);
            }
            if (pads > 0 || chars == 1) {
                throw fail("the body ends inside a base64 group");
            }
            byte[] out = new byte[2];
            int n = flush(out, 0, chars);
            return ByteBuffer.wrap(out, 0, n);
        }

        private int flush(byte[] out, int n, int data) {
            switch (data) {
                case 4 -> {
                    out[n++] = (byte) (group >> 16);
                    out[n++] = (byte) (group >> 8);
                    out[n++] = (byte) group;
                }
                case 3 -> {
                    out[n++] = (byte) (group >> 10);
                    out[n++] = (byte) (group >> 2);
                }
                default -> out[n++] = (byte) (group >> 4);
            }
            group = 0;
            chars = 0;
            pads = 0;
            return n;
        }

        private Malformed fail(String why) {
            failed = true;
            return new Malformed(why);
        }
    }
}
