package dev.sluice.engine.blocking;

import dev.sluice.engine.blocking.upstream.H2UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamResponse;
import dev.sluice.http.GrpcStatus;
import dev.sluice.http.GrpcWeb;
import dev.sluice.http.GrpcWebText;
import dev.sluice.http.HeaderRules;
import dev.sluice.observe.ExchangeTally;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * Carries a gRPC-Web call's bytes as the core's {@link GrpcWeb} decides: the request body through
 * text mode's decoder, the upstream's messages out as they arrive (encoded in text mode), then its
 * trailers as the body's last frame.
 */
final class GrpcWebRelay {

    private static final int BUFFER = 16 * 1024;

    private GrpcWebRelay() {}

    /** The request body as the gRPC call's: decoded as it is read in text mode. */
    static InputStream body(GrpcWeb web, InputStream content) {
        GrpcWebText.Decoder decoder = web.requestDecoder();
        return decoder == null ? content : new Decoding(content, decoder);
    }

    /** Relays the upstream's answer as gRPC-Web. */
    static void relay(Request request, UpstreamResponse upstream, Response response, HeaderRules rules, GrpcWeb web)
            throws IOException, dev.sluice.engine.blocking.upstream.UpstreamException {
        ExchangeTally tally = Requests.tally(request);
        if (tally != null) { // a trailers-only answer carries its gRPC status in the head
            tally.grpcStatus(upstream.header(GrpcStatus.STATUS_HEADER));
        }
        response.setStatus(upstream.status());
        HttpFields.Mutable headers = response.getHeaders();
        String connection = upstream.header("Connection");
        for (int i = 0, n = upstream.headerCount(); i < n; i++) {
            String name = upstream.headerName(i);
            if (rules.forwardResponse(name, connection) && !GrpcWeb.replacesResponseHeader(name)) {
                headers.add(name, upstream.headerValue(i));
            }
        }
        for (Map.Entry<String, String> set : rules.responseSets().entrySet()) {
            headers.put(set.getKey(), set.getValue());
        }
        headers.put(HttpHeader.CONTENT_TYPE, web.contentType());
        ProxyRoute.chunkUnknownLength(request, response, upstream.status());
        // the server's pool, as ProxyRoute relays through: each write blocks, so the buffer is free on release
        RetainableByteBuffer pooled =
                request.getComponents().getByteBufferPool().acquire(BUFFER, false);
        GrpcWeb.Frames frames = new GrpcWeb.Frames();
        try {
            ByteBuffer view = pooled.getByteBuffer();
            byte[] array = view.array();
            int base = view.arrayOffset();
            while (true) {
                int n;
                try {
                    n = upstream.readArrived(array, base, BUFFER); // each message out as it arrives
                } catch (dev.sluice.engine.blocking.upstream.UpstreamException e) {
                    // cut short before its trailers: an error trailer frame, or the failure (GrpcWeb.cutShort)
                    ByteBuffer last = web.cutShort(frames).orElseThrow(() -> e);
                    if (tally != null) {
                        tally.grpcStatus(Integer.toString(GrpcWeb.CUT_SHORT_STATUS));
                    }
                    ClientOutput.send(response, true, last);
                    return;
                }
                if (n < 0) {
                    break;
                }
                if (n > 0) {
                    ByteBuffer piece = ByteBuffer.wrap(array, base, n);
                    frames.pass(piece);
                    ClientOutput.send(response, false, web.encode(piece));
                }
            }
        } finally {
            pooled.release();
        }
        Supplier<HttpFields> trailers = H2UpstreamClient.trailers(upstream);
        HttpFields fields = trailers == null ? null : trailers.get();
        if (fields == null || fields.size() == 0) { // trailers-only: the status was in the head
            ClientOutput.send(response, true, ByteBuffer.allocate(0));
            return;
        }
        if (tally != null) {
            tally.grpcStatus(fields.get(GrpcStatus.STATUS_HEADER));
        }
        List<Map.Entry<String, String>> block = new ArrayList<>(fields.size());
        for (HttpField field : fields) {
            block.add(Map.entry(field.getName(), field.getValue()));
        }
        ClientOutput.send(response, true, web.trailerFrame(block));
    }

    /** Text mode's request body, decoded as it is read. */
    private static final class Decoding extends BulkInputStream {
        private final InputStream in;
        private final GrpcWebText.Decoder decoder;
        private final byte[] text = new byte[16 * 1024];
        private ByteBuffer decoded = ByteBuffer.allocate(0);
        private boolean ended;

        Decoding(InputStream in, GrpcWebText.Decoder decoder) {
            this.in = in;
            this.decoder = decoder;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            try {
                while (!decoded.hasRemaining()) {
                    if (ended) {
                        return -1;
                    }
                    int n = in.read(text, 0, text.length);
                    if (n < 0) {
                        ended = true;
                        decoded = decoder.finish();
                    } else {
                        decoded = decoder.decode(ByteBuffer.wrap(text, 0, n));
                    }
                }
            } catch (GrpcWebText.Malformed e) {
                throw new IOException("gRPC-Web text body: " + e.getMessage(), e);
            }
            int n = Math.min(len, decoded.remaining());
            decoded.get(b, off, n);
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
