package dev.sluice.engine.blocking;

import dev.sluice.compress.Coding;
import dev.sluice.compress.Compression;
import dev.sluice.compress.ResponseEncoder;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * A route's response with its {@link Compression} carried out: the write that commits the head asks
 * the core whether to compress, and from then on every write leaves encoded (gzip or zstd), flushed (each write here is
 * a point where the route wants the client to see its bytes: a proxied chunk relayed, a composition's
 * staging buffer sent before it waits for a part). Used only on routes with a {@code compression}
 * filter; {@link #close()} frees the encoder once the route has returned (its writes block, so all
 * of them are done by then), and the gateway's own answers after that (an error) pass as they are.
 */
final class ResponseCompressor extends Response.Wrapper implements AutoCloseable {

    private final Compression compression;
    private final Coding wanted; // null: sent as it is
    private boolean decided;
    private boolean closed; // the route has returned: the gateway's own answers (errors) pass as they are
    private ResponseEncoder encoder; // while the body is compressed

    ResponseCompressor(Request request, Response response, Compression compression) {
        super(request, response);
        this.compression = compression;
        this.wanted = compression.wanted(
                request.getConnectionMetaData().getHttpVersion().asString(),
                request.getMethod(),
                request.getHeaders().get("Accept-Encoding"));
    }

    @Override
    public void write(boolean last, ByteBuffer content, Callback callback) {
        if (closed) {
            super.write(last, content, callback);
            return;
        }
        if (!decided) {
            decided = true;
            if (!isCommitted() && compression.begin(wanted, getStatus(), head(getHeaders()))) {
                encoder = compression.encoder(wanted);
            }
        }
        if (encoder == null) {
            super.write(last, content, callback);
            return;
        }
        ByteBuffer body = content == null ? ByteBuffer.allocate(0) : content;
        super.write(last, last ? encoder.finish(body) : encoder.encode(body, true), callback);
    }

    @Override
    public void reset() {
        super.reset();
        if (encoder != null) {
            encoder.close();
            encoder = null;
        }
        decided = false;
    }

    @Override
    public void close() {
        closed = true;
        if (encoder != null) {
            encoder.close();
            encoder = null;
        }
    }

    private static Compression.ResponseHead head(HttpFields.Mutable fields) {
        return Compression.ResponseHead.of(fields::get, fields::put, fields::remove);
    }
}
