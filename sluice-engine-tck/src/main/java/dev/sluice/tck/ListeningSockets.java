package dev.sluice.tck;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Whether any socket of this machine listens on a TCP port, read from the kernel's tables ({@code
 * /proc/net/tcp} and {@code tcp6}, Linux).
 *
 * <p>For "a stopped server no longer listens": connecting to its old port to see it refused is a race,
 * since the freed port can be handed to the next socket at once, even to the probe's own outgoing
 * connection (a TCP self-connect, which then waits for an answer that never comes). The kernel's table
 * says what listens now, without opening anything.
 */
public final class ListeningSockets {

    private static final String LISTEN = "0A";
    private static final List<Path> TABLES = List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));

    private ListeningSockets() {}

    /** Whether the kernel's tables can be read here (Linux). */
    public static boolean readable() {
        return Files.isReadable(TABLES.getFirst());
    }

    /** Whether a socket listens on {@code port}, on any address. */
    public static boolean listening(int port) {
        String hexPort = String.format(Locale.ROOT, ":%04X", port);
        for (Path table : TABLES) {
            if (!Files.isReadable(table)) {
                continue;
            }
            List<String> lines;
            try {
                lines = Files.readAllLines(table);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + table, e);
            }
            for (String line : lines.subList(1, lines.size())) {
                String[] fields = line.trim().split("\\s+");
                if (fields.length > 3 && fields[1].endsWith(hexPort) && fields[3].equals(LISTEN)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Waits until nothing listens on {@code port}, for at most {@code within} (a closed listener can
     * stay in the table a moment: io_uring, for one, releases its sockets after the ring is torn down).
     *
     * @return whether the port stopped listening in time
     */
    public static boolean awaitNotListening(int port, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (listening(port)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
