package dev.sluice.lab.compose;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Sequential requests on fresh connections ({@code Connection: close}) timing the first byte of the
 * answer (its status line) and the last (the server's close), with the status checked.
 */
public final class Probe {

    /** Milliseconds from sending to the first and to the last byte, and the bytes read (headers included). */
    public record Timing(double firstByteMillis, double lastByteMillis, long bytes) {}

    /** Medians over {@code n} requests. */
    public record Medians(double firstByteMillis, double lastByteMillis, long bytes, int n) {}

    private Probe() {}

    /** One request; fails unless the status is 200. */
    public static Timing once(URI url) throws IOException {
        String target = url.getRawPath() + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(url.getHost(), url.getPort()), 5_000);
            s.setSoTimeout(120_000);
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            byte[] request = ("GET " + target + " HTTP/1.1\r\nHost: " + url.getHost() + ":" + url.getPort()
                            + "\r\nAccept: application/json\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            long start = System.nanoTime();
            out.write(request);
            out.flush();
            byte[] buf = new byte[64 * 1024];
            int n = in.read(buf);
            long first = System.nanoTime();
            if (n <= 0) {
                throw new IOException(target + ": closed without an answer");
            }
            String head = new String(buf, 0, Math.min(n, 12), StandardCharsets.US_ASCII);
            if (!head.startsWith("HTTP/1.1 200")) {
                throw new IOException(target + ": '" + head.strip() + "' (expected: HTTP/1.1 200)");
            }
            long total = n;
            while ((n = in.read(buf)) > 0) {
                total += n;
            }
            long last = System.nanoTime();
            return new Timing((first - start) / 1e6, (last - start) / 1e6, total);
        }
    }

    /** {@code n} requests one after the other; the medians. */
    public static Medians medians(URI url, int n) throws IOException {
        double[] first = new double[n];
        double[] last = new double[n];
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            Timing t = once(url);
            first[i] = t.firstByteMillis();
            last[i] = t.lastByteMillis();
            bytes = t.bytes();
        }
        return new Medians(median(first), median(last), bytes, n);
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
