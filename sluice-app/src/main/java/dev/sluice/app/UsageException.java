package dev.sluice.app;

/** The command line is wrong: the CLI prints the message and the usage, and exits with 2. */
final class UsageException extends Exception {
    UsageException(String message) {
        super(message, null, false, false);
    }
}
