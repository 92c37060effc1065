package dev.sluice.observe;

import java.util.Locale;

/** How a composition part settled, as metrics and logs name it. */
public enum PartKind {
    /** Relayed whole. */
    OK,
    /** {@code null}: its deadline passed, or its upstream call timed out. */
    TIMEOUT,
    /** {@code null}: the upstream answered a status the part refuses. */
    STATUS,
    /** {@code null}: not JSON, empty, or not the JSON content type. */
    INVALID,
    /** Cut short: the response failed or was aborted before the part was relayed. */
    ABORTED,
    /** {@code null}: the call failed otherwise (refused, reset, an invalid answer). */
    FAILED;

    /** The label: {@code ok}, {@code timeout}, {@code status}… */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
