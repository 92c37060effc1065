package dev.sluice.lab.run;

import dev.sluice.lab.LabFailure;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports for the processes the lab starts, which bind them a moment later (wrk, nginx and
 * the seeds' servers are told their port). They are taken below the kernel's ephemeral range (Linux:
 * 32768-60999), where the kernel never hands a port to a socket that did not name it: a port closed
 * after the probe cannot be given meanwhile to a server binding port 0 or to an outgoing connection,
 * only to a process naming that very port. A port from the ephemeral range would race both.
 */
public final class Ports {

    private Ports() {}

    /** A port free now on 127.0.0.1, below the ephemeral range (the process that gets it binds it a moment later). */
    public static int free() throws LabFailure {
        return freeBlock(1);
    }

    /** The first of {@code count} consecutive ports free now, below the ephemeral range. */
    public static int freeBlock(int count) throws LabFailure {
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(20_000, 30_000);
            List<ServerSocket> held = new ArrayList<>();
            boolean ok = true;
            try {
                for (int i = 0; i < count; i++) {
                    held.add(new ServerSocket(base + i, 1, InetAddress.getLoopbackAddress()));
                }
            } catch (IOException e) {
                ok = false;
            } finally {
                for (ServerSocket s : held) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // closing a socket we only probed
                    }
                }
            }
            if (ok) {
                return base;
            }
        }
        throw new LabFailure("no " + count + " consecutive free ports in 20000..30000");
    }
}
