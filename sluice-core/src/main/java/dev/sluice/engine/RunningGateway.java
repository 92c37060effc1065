package dev.sluice.engine;

/** A started gateway. {@link #close()} stops accepting, lets in-flight requests finish (up to the grace period) and frees every resource. */
public interface RunningGateway extends AutoCloseable {

    /** The port it listens on (the real one when the configuration asked for 0). */
    int port();

    /**
     * The socket transport under it, as the started line prints it: {@code io_uring} or {@code nio}
     * (Java's selector, the JDK's virtual-thread poller), so that a user sees which one a
     * measurement ran on.
     */
    String transport();

    /**
     * Why this gateway can no longer serve although it was not closed (an event loop died or is
     * stuck), or empty while it can. {@code sluice run} asks every second and exits on a failure,
     * so that a supervisor starts a fresh process instead of keeping one that answers nothing.
     */
    default java.util.Optional<String> failure() {
        return java.util.Optional.empty();
    }

    @Override
    void close();
}
