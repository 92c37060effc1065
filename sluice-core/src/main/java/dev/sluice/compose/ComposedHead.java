package dev.sluice.compose;

import dev.sluice.config.ComposeTarget;
import dev.sluice.config.ComposeTarget.Delivery;
import dev.sluice.http.HeaderRules;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@code HEAD} on a composition (RFC 9110 §9.3.2): the head a {@code GET} would get, decided from
 * the route's configuration alone, so no part's upstream is called and no body is written. The
 * status is {@code 200}: a {@code GET} whose {@code status-from} or {@code require} part fails
 * answers another one, which only calling the parts could tell; a client that must know asks with
 * {@code GET}. {@code X-Sluice-Completed} is not sent (nothing was composed). The format is
 * negotiated as for a {@code GET} ({@link DeliveryNegotiation}, a {@code 406} alike).
 */
public final class ComposedHead {

    /** The head's status, which the engine writes: 200 (see above for why never another). */
    public static final int STATUS = 200;

    private ComposedHead() {}

    /** Whether the request asks for the head alone: the engine answers {@link #headers} and calls no part. */
    public static boolean asked(String method) {
        return "HEAD".equals(method);
    }

    /**
     * The head's fields: the route's composed headers ({@code Content-Type: application/json} unless
     * the route edits it), the chosen format's Content-Type for a per-part format, {@code Vary:
     * Accept} when the route negotiates.
     */
    public static Map<String, String> headers(ComposeTarget target, Delivery delivery, HeaderRules rules) {
        Map<String, String> headers = new LinkedHashMap<>(rules.composedResponseHeaders());
        if (delivery != Delivery.JSON) {
            headers.put("Content-Type", delivery.contentType());
        }
        if (target.negotiatesDelivery()) {
            headers.put("Vary", "Accept");
        }
        return headers;
    }
}
