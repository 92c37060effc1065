package dev.sluice.demo;

import java.io.IOException;

/** A demo upstream could not listen because its port is taken. */
public final class PortInUseException extends IOException {

    private final int port;

    PortInUseException(int port, String service, Throwable cause) {
        super(
                "port " + port + " is in use (demo upstream '" + service
                        + "'): stop what uses it or choose another port base",
                cause);
        this.port = port;
    }

    /** The port that is taken. */
    public int port() {
        return port;
    }
}
