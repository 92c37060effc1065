package dev.sluice.compose;

import dev.sluice.config.PartConfig.Shaping;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A rough guide, not a benchmark (no JMH, not a test): ns per input byte of {@link JsonShaper} over
 * the lab's compose document with the lab's shaped selection, fed in 16 KiB chunks as the reactive
 * engine feeds it. {@code java -cp <core classes>:<test classes> dev.sluice.compose.ShapeBench [MiB] [rounds]}.
 */
public final class ShapeBench {

    private static final java.lang.management.ThreadMXBean CPU =
            java.lang.management.ManagementFactory.getThreadMXBean();

    private ShapeBench() {}

    public static void main(String[] args) {
        int size = (args.length > 0 ? Integer.parseInt(args[0]) : 8) << 20;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        boolean validateOnly = args.length > 2 && args[2].equals("validate"); // the check alone, for comparison
        byte[] doc = doc(size);
        Shaping shaping = new Shaping(
                List.of("id", "name", "price", "items[*].sku"), List.of(), Map.of(), Optional.empty(), 4096);
        byte[] out = new byte[16 * 1024 + 64];
        long sink = 0;
        double[] ns = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long t0 = CPU.getCurrentThreadCpuTime(); // CPU time: the machine is shared
            if (validateOnly) {
                JsonValidator v = new JsonValidator();
                for (int from = 0; from < doc.length; from += 16 * 1024) {
                    v.feed(doc, from, Math.min(16 * 1024, doc.length - from));
                }
                ns[r] = (double) (CPU.getCurrentThreadCpuTime() - t0) / doc.length;
                sink += v.finish() ? 1 : 0;
                continue;
            }
            JsonShaper shaper = new JsonShaper(shaping);
            for (int from = 0; from < doc.length; from += 16 * 1024) {
                int n = Math.min(16 * 1024, doc.length - from);
                int used = 0;
                while (used < n || shaper.hasPending()) {
                    used += shaper.shape(doc, from + used, n - used, out, 0, out.length);
                    sink += shaper.produced();
                }
            }
            if (!shaper.finish()) {
                throw new IllegalStateException(shaper.error());
            }
            long t = CPU.getCurrentThreadCpuTime() - t0;
            ns[r] = (double) t / doc.length;
        }
        double[] later = java.util.Arrays.copyOfRange(ns, rounds / 2, rounds); // after warm-up
        java.util.Arrays.sort(later);
        System.out.printf(
                Locale.ROOT,
                "CPU ns/byte over the last %d rounds: min %.3f, median %.3f (output %d bytes)%n",
                later.length,
                later[0],
                later[later.length / 2],
                sink / rounds);
    }

    /** The lab's compose document ({@code sluice-lab} Documents.doc), rebuilt here: core does not see the lab. */
    static byte[] doc(int n) {
        StringBuilder sb = new StringBuilder(n);
        sb.append("{\"id\":").append(n).append(",\"name\":\"Product ").append(n).append('"');
        sb.append(",\"price\":19.99,\"currency\":\"EUR\",\"reviewIds\":[1,2,3],\"items\":[");
        String tail = "],\"padding\":\"\"}";
        String[] colours = {"red", "green", "blue", "black", "white"};
        for (int i = 0; ; i++) {
            String item = String.format(
                    Locale.ROOT,
                    "%s{\"sku\":\"SKU-%08d\",\"colour\":\"%s\",\"size\":%d,\"stock\":%d,\"warehouse\":\"wh-%d\"}",
                    i == 0 ? "" : ",",
                    i,
                    colours[i % colours.length],
                    36 + i % 10,
                    (i * 7) % 500,
                    i % 16);
            if (sb.length() + item.length() + tail.length() > n) {
                break;
            }
            sb.append(item);
        }
        sb.append("],\"padding\":\"");
        sb.repeat('x', n - sb.length() - 2);
        sb.append("\"}");
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
