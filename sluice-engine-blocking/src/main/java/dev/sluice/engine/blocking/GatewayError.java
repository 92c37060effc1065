package dev.sluice.engine.blocking;

/** An error the gateway answers itself, before anything was committed: status, code and message. */
final class GatewayError extends Exception implements dev.sluice.http.FailureAnswer.Decided {

    private final int status;
    private final String code;
    private final boolean closes;

    GatewayError(int status, String code, String message) {
        this(status, code, message, false);
    }

    /** @param closes whether the connection closes after the answer (the client's body was left unread) */
    GatewayError(int status, String code, String message, boolean closes) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.closes = closes;
    }

    boolean closes() {
        return closes;
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public String code() {
        return code;
    }
}
