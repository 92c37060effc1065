package dev.sluice.lab.compose;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The product documents of the compose scenario, served by the lab's upstream: {@code GET /doc/N} is a
 * JSON product of exactly N bytes (id, name, price, {@code reviewIds}, 20 {@code relatedIds}, an
 * {@code items} array of objects with a {@code sku} and four more fields, then a {@code padding} string
 * that makes up the length); {@code GET /reviews?ids=1,2} and {@code GET /products/{id}} are small answers
 * for chained and collection parts.
 */
public final class Documents {

    /** The smallest document: the head, one item and the padding member. */
    public static final int MIN = 512;

    public static final int MAX = 10 << 20;

    /** How many review ids and related ids every document carries. */
    public static final int REVIEWS = 8;

    public static final int RELATED = 20;

    private Documents() {}

    /** The document of exactly {@code n} bytes (ASCII). */
    public static byte[] doc(int n) {
        if (n < MIN || n > MAX) {
            throw new IllegalArgumentException("n: " + n + " (expected: " + MIN + ".." + MAX + ")");
        }
        StringBuilder sb = new StringBuilder(n);
        sb.append("{\"id\":").append(n).append(",\"name\":\"Product ").append(n).append('"');
        sb.append(",\"price\":19.99,\"currency\":\"EUR\",\"reviewIds\":[");
        for (int i = 1; i <= REVIEWS; i++) {
            sb.append(i == 1 ? "" : ",").append(i);
        }
        sb.append("],\"relatedIds\":[");
        for (int i = 1; i <= RELATED; i++) {
            sb.append(i == 1 ? "" : ",").append(1000 + i);
        }
        sb.append("],\"items\":[");
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

    /** {@code [{"id":1,"productId":..,"stars":..,"text":..}, …]} for the ids in {@code query} (any separators). */
    public static byte[] reviews(String query) {
        List<Long> ids = ids(query == null ? "" : query);
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < ids.size(); i++) {
            long id = ids.get(i);
            sb.append(i == 0 ? "" : ",")
                    .append("{\"id\":")
                    .append(id)
                    .append(",\"stars\":")
                    .append(1 + id % 5)
                    .append(",\"text\":\"Review ")
                    .append(id)
                    .append(": does what it says.\"}");
        }
        return sb.append(']').toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** A small related product. */
    public static byte[] product(long id) {
        return ("{\"id\":" + id + ",\"name\":\"Related " + id + "\",\"price\":" + (5 + id % 50) + ".5,\"sku\":\"SKU-R"
                        + id + "\"}")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** The decimal numbers in {@code text}, in order ({@code ids=1,2,3}, {@code ids=[1,2]}, {@code ids=1%2C2}). */
    static List<Long> ids(String text) {
        String q = text.replace("%2C", ",").replace("%2c", ",");
        int eq = q.indexOf("ids=");
        if (eq >= 0) {
            q = q.substring(eq + 4);
            int amp = q.indexOf('&');
            if (amp >= 0) {
                q = q.substring(0, amp);
            }
        }
        List<Long> ids = new ArrayList<>();
        long cur = -1;
        for (int i = 0; i <= q.length(); i++) {
            char c = i < q.length() ? q.charAt(i) : ',';
            if (c >= '0' && c <= '9' && ids.size() < 1000) {
                cur = (cur < 0 ? 0 : cur * 10) + (c - '0');
            } else if (cur >= 0) {
                ids.add(cur);
                cur = -1;
            }
        }
        return ids;
    }
}
