package dev.sluice.http;

import java.util.List;

/**
 * h2c by upgrade is taken on a connection's first request only: a connection that began in HTTP/1.1
 * stays so, and a later {@code Upgrade: h2c} is ignored (a server may ignore an Upgrade header, RFC
 * 9110 section 7.8; RFC 9113 deprecates h2c's upgrade). Both engines ask here.
 */
public final class H2cUpgrade {

    /** The request header whose values {@link #asked} reads: the engine hands them in as they came. */
    public static final String HEADER = WebSocketUpgrade.HEADER;

    private H2cUpgrade() {}

    /** Whether a request's {@code Upgrade} values ask for h2c. */
    public static boolean asked(List<String> upgrade) {
        return WebSocketUpgrade.hasToken(upgrade, "h2c");
    }
}
