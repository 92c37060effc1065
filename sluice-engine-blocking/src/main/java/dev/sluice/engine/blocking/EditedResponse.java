package dev.sluice.engine.blocking;

import dev.sluice.policy.ResponseEdits;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * An admitted exchange's response, carrying its policies' {@link ResponseEdits} into the head: every
 * write made while nothing is committed (the one that commits the head: a proxied response, a
 * composition, or the gateway's own error after a reset) applies them first, after whatever the
 * route set. Used only when a policy asked for edits.
 */
final class EditedResponse extends Response.Wrapper {

    private final ResponseEdits edits;

    EditedResponse(Request request, Response response, ResponseEdits edits) {
        super(request, response);
        this.edits = edits;
    }

    @Override
    public void write(boolean last, ByteBuffer content, Callback callback) {
        if (!isCommitted()) {
            HttpFields.Mutable headers = getHeaders();
            edits.applyTo(headers::getValuesList, headers::put);
        }
        super.write(last, content, callback);
    }
}
