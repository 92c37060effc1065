package dev.sluice.lab;

/** A lab run cannot go on for a reason the user can act on (a missing jar, wrk not installed, a subject that did not start). */
public final class LabFailure extends Exception {
    public LabFailure(String message) {
        super(message);
    }

    public LabFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
