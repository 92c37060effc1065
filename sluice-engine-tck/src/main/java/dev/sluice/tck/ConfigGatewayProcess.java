package dev.sluice.tck;

import dev.sluice.config.ConfigLoader;
import dev.sluice.config.GatewayConfig;
import dev.sluice.engine.Engine;
import dev.sluice.engine.RunningGateway;
import java.nio.file.Path;

/**
 * A gateway in a JVM of its own, run from a configuration file as {@code sluice run} would (the
 * engine its {@code server.engine} names): for tests that need several gateways as separate
 * processes, such as two replicas sharing one Redis.
 *
 * <pre>
 *   java ... dev.sluice.tck.ConfigGatewayProcess &lt;config.yaml&gt;
 * </pre>
 *
 * It prints {@code PORT <n>} on stdout once it accepts connections and runs until its stdin closes.
 */
public final class ConfigGatewayProcess {

    private ConfigGatewayProcess() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: ConfigGatewayProcess <config.yaml>");
            System.exit(2);
        }
        GatewayConfig config = ConfigLoader.load(Path.of(args[0]));
        try (RunningGateway gateway = Engine.forMode(config.server().engine()).start(config)) {
            System.out.println("PORT " + gateway.port());
            System.out.flush();
            while (System.in.read() >= 0) {
                // runs until the parent closes stdin
            }
        }
    }
}
