package dev.sluice.lab;

/** The command line is wrong; the message says which part and what was expected. */
public final class UsageException extends Exception {
    public UsageException(String message) {
        super(message);
    }
}
