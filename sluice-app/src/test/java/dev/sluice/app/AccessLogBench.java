package dev.sluice.app;

import dev.sluice.observe.ExchangeEvent;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * A rough guide, not a benchmark (no JMH, not a test): the access log writer thread's CPU time per
 * JSON line, for a /16k-like exchange written to a sink that discards it, as the lab's configurations
 * log to /dev/null. {@code java -cp <app classes>:<test classes>:<classpath> dev.sluice.app.AccessLogBench
 * [lines per round]}; compare builds by running each (alternated) on the same machine.
 */
public final class AccessLogBench {

    private AccessLogBench() {}

    public static void main(String[] args) {
        int lines = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        ExchangeEvent event = new ExchangeEvent(
                "file",
                "GET",
                200,
                false,
                1_734_000,
                "/16k",
                "q7k2m9xa-1f",
                "127.0.0.1",
                0,
                16384,
                1_212_000,
                "4bf92f3577b34da6a3ce929d0e0e4736",
                "00f067aa0ba902b7",
                "",
                true,
                "",
                List.of());
        OutputStream discard = new OutputStream() {
            @Override
            public void write(int b) {}

            @Override
            public void write(byte[] b, int off, int len) {}
        };
        var cpu = ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 8; round++) {
            AccessLog log = AccessLog.to(discard, 1 << 16);
            Thread writer = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("sluice-access-log"))
                    .findFirst()
                    .orElseThrow();
            long before = cpu.getThreadCpuTime(writer.threadId());
            for (int i = 0; i < lines; i++) {
                long dropped = log.dropped();
                log.exchange(event);
                while (log.dropped() != dropped) { // the queue was full: offer it again
                    Thread.onSpinWait();
                    dropped = log.dropped();
                    log.exchange(event);
                }
            }
            long spent = cpu.getThreadCpuTime(writer.threadId()) - before;
            log.close();
            System.out.printf("round %d: the writer's CPU %.1f ns per line%n", round, spent / (double) lines);
        }
    }
}
