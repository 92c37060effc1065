package dev.sluice.http;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The id that names one request in the gateway's log, in its answers ({@link #onAnswer}) and in every upstream
 * request it makes for that request ({@code X-Request-Id}: the proxied one and each composition
 * part, so an upstream's log lines join the gateway's). A
 * client's own {@code X-Request-Id} is kept when it is sane (1 to {@value #MAX_LENGTH} visible ASCII
 * characters, so it can neither break a log line nor a header); otherwise the gateway makes one: a
 * random per-process prefix and a counter, such as {@code q7k2m9xa-1f}. Making one costs an atomic
 * increment: no {@code SecureRandom}, no UUID.
 */
public final class RequestId {

    /** The header that carries the id, in requests and in the gateway's answers. */
    public static final String HEADER = "X-Request-Id";

    /** The longest client id kept. */
    public static final int MAX_LENGTH = 128;

    private static final char[] DIGITS = "0123456789abcdefghijklmnopqrstuv".toCharArray();
    private static final String PREFIX = prefix();
    private static final AtomicLong COUNTER = new AtomicLong();

    private RequestId() {}

    /** {@code incoming} when it is a sane id, a new one otherwise (also when it is {@code null}). */
    public static String reuseOrNext(String incoming) {
        return isSane(incoming) ? incoming : next();
    }

    /**
     * The {@code X-Request-Id} an answer carries, or null for none: the exchange's id on every answer
     * with {@code server.request-id.response} (the default), else only on a failure inside the gateway
     * (whose body names it too). An upstream's own {@code X-Request-Id} is never relayed in its place
     * ({@link HeaderRules}): the upstream was sent this one.
     *
     * @param everyAnswer {@code server.request-id.response}
     * @param internalFailure the answer is a failure inside the gateway
     * @param id the exchange's id ({@link #reuseOrNext})
     */
    public static String onAnswer(boolean everyAnswer, boolean internalFailure, String id) {
        return everyAnswer || internalFailure ? id : null;
    }

    /** A new id, unique within this process, and across processes with high probability. */
    public static String next() {
        return PREFIX + Long.toString(COUNTER.incrementAndGet(), 36);
    }

    /** Whether a client's id may be kept: 1 to {@value #MAX_LENGTH} characters, each visible ASCII. */
    public static boolean isSane(String id) {
        if (id == null || id.isEmpty() || id.length() > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }

    /** Eight base-32 characters and a dash: 40 random bits tell this process's ids from another's. */
    private static String prefix() {
        long bits = ThreadLocalRandom.current().nextLong();
        char[] prefix = new char[9];
        for (int i = 0; i < 8; i++) {
            prefix[i] = DIGITS[(int) (bits >>> (5 * i)) & 31];
        }
        prefix[8] = '-';
        return new String(prefix);
    }
}
