package dev.sluice.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;

/**
 * Fuzz target for gRPC-Web's text decoder (run by {@code dev.sluice.fuzz.CoreFuzzTest}): whatever the
 * body and however it is split, {@link GrpcWebText.Decoder} answers with bytes or its own {@link
 * GrpcWebText.Malformed}, and on a body {@link Base64#getDecoder()} takes it gives the same bytes.
 */
public final class GrpcWebFuzzTargets {

    private GrpcWebFuzzTargets() {}

    /** Input: one byte, where the body is split (modulo its length + 1), then the body. */
    public static void textDecoder(byte[] data) {
        if (data.length == 0) {
            return;
        }
        byte[] body = Arrays.copyOfRange(data, 1, data.length);
        int cut = (data[0] & 0xff) % (body.length + 1);
        byte[] ours;
        try {
            GrpcWebText.Decoder decoder = new GrpcWebText.Decoder();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            append(out, decoder.decode(ByteBuffer.wrap(body, 0, cut)));
            append(out, decoder.decode(ByteBuffer.wrap(body, cut, body.length - cut)));
            append(out, decoder.finish());
            ours = out.toByteArray();
        } catch (GrpcWebText.Malformed refused) {
            ours = null;
        }
        byte[] theirs;
        try {
            theirs = Base64.getDecoder().decode(body);
        } catch (IllegalArgumentException refused) {
            return; // gRPC-Web takes more (padding between messages): nothing to compare
        }
        if (ours == null || !Arrays.equals(ours, theirs)) {
            throw new AssertionError("decoded otherwise than java.util.Base64 (input: "
                    + new String(body, java.nio.charset.StandardCharsets.ISO_8859_1) + ", cut " + cut + ")");
        }
    }

    private static void append(ByteArrayOutputStream out, ByteBuffer piece) {
        byte[] bytes = new byte[piece.remaining()];
        piece.get(bytes);
        out.writeBytes(bytes);
    }
}
