package dev.sluice.transcode;

import com.google.protobuf.DynamicMessage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The transcoder's fuzz target (CoreFuzzTest's {@code t}). */
public final class TranscodeFuzzTargets {

    private static final TranscodeSchema SCHEMA = TranscodeSchema.of(ShopDescriptors.set(), List.of("shop.Shop"));

    private TranscodeFuzzTargets() {}

    /**
     * Input: a first line {@code VERB /path?query}, then the JSON body. The request is matched against
     * the Shop bindings and built: it either fails with a TranscodeException answered 400 or yields one
     * gRPC frame whose message parses back as the method's input type; the first line as a template
     * parses or is refused with IllegalArgumentException; the body fed to GrpcFrames yields messages
     * within the bound or a TranscodeException, nothing else.
     */
    public static void transcode(byte[] data) throws Exception {
        int newline = indexOf(data, (byte) '\n');
        String line = new String(data, 0, newline < 0 ? data.length : newline, StandardCharsets.UTF_8);
        byte[] body = newline < 0 ? new byte[0] : Arrays.copyOfRange(data, newline + 1, data.length);
        int space = line.indexOf(' ');
        String verb = space < 0 ? "GET" : line.substring(0, space);
        String target = space < 0 ? line : line.substring(space + 1);
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        String query = q < 0 ? null : target.substring(q + 1);
        try {
            HttpTemplate.parse(path).match(path);
        } catch (IllegalArgumentException refused) {
            // a bad template is refused by path at check time
        }
        Optional<TranscodeSchema.Match> match = SCHEMA.match(verb, path);
        if (match.isPresent()) {
            try {
                byte[] frame = TranscodeRequest.build(match.get(), query, body);
                int length = ByteBuffer.wrap(frame, 1, 4).getInt();
                if (frame[0] != 0 || length != frame.length - 5) {
                    throw new IllegalStateException("bad frame for " + line);
                }
                DynamicMessage.parseFrom(
                        match.get().binding().method().getInputType(), Arrays.copyOfRange(frame, 5, frame.length));
            } catch (TranscodeException e) {
                if (e.httpStatus() != 400) {
                    throw new IllegalStateException("a request refused with " + e.httpStatus(), e);
                }
            }
        }
        GrpcFrames frames = new GrpcFrames(64);
        try {
            for (byte[] message : frames.feed(ByteBuffer.wrap(body))) {
                if (message.length > 64) {
                    throw new IllegalStateException("a message over the bound");
                }
            }
        } catch (TranscodeException refused) {
            // oversized or compressed: refused, not buffered
        }
    }

    private static int indexOf(byte[] data, byte b) {
        for (int i = 0; i < data.length; i++) {
            if (data[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
