package dev.sluice.engine.blocking.upstream;

import dev.sluice.http.FailureAnswer;
import dev.sluice.http.UpstreamFailure;

/** An upstream call failed; {@link #failure()} says how, and so which status the client gets. */
public final class UpstreamException extends Exception implements FailureAnswer.Decided {

    private final UpstreamFailure failure;

    public UpstreamException(UpstreamFailure failure, String upstream, Throwable cause) {
        super(failure.reason() + ": " + upstream, cause, false, false);
        this.failure = failure;
    }

    public UpstreamFailure failure() {
        return failure;
    }

    @Override
    public int status() {
        return failure.status();
    }

    @Override
    public String code() {
        return failure.code();
    }
}
