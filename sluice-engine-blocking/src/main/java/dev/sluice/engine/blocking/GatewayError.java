package dev.sluice.engine.blocking;

/** An error the gateway answers itself, before anything was committed: status, code and message. */
final class GatewayError extends Exception {

    private final int status;
    private final String code;

    GatewayError(int status, String code, String message) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
    }

    int status() {
        return status;
    }

    String code() {
        return code;
    }
}
