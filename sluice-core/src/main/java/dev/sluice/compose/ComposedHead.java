package dev.sluice.compose;

import dev.sluice.config.ComposeTarget;
import dev.sluice.config.ComposeTarget.Delivery;
import dev.sluice.http.HeaderRules;
import java.util.function.BiConsumer;

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

    /** Whether the request asks for the head alone: the engine answers {@link #fields} and calls no part. */
    public static boolean asked(String method) {
        return "HEAD".equals(method);
    }

    /**
     * The fields a composed response's head carries, a {@code HEAD}'s and a {@code GET}'s alike, each
     * given to {@code set} (replacing a field of that name) or {@code add} (beside one): the route's
     * composed headers ({@code Content-Type: application/json} unless the route edits it), the chosen
     * format's Content-Type for a per-part format, and {@code Vary: Accept} beside a route's own {@code
     * Vary} when the route negotiates.
     */
    public static void fields(
            ComposeTarget target,
            Delivery delivery,
            HeaderRules rules,
            BiConsumer<String, String> set,
            BiConsumer<String, String> add) {
        rules.composedResponseHeaders().forEach(set);
        if (delivery != Delivery.JSON) {
            set.accept("Content-Type", delivery.contentType());
        }
        if (target.negotiatesDelivery()) {
            add.accept("Vary", "Accept");
        }
    }
}
