package dev.sluice.http;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Fuzz targets for the checks that decide how a message is framed (run by {@code
 * dev.sluice.fuzz.CoreFuzzTest}): whatever the head, they answer (no exception), and a head they
 * let through has exactly one reading of where its body ends.
 */
public final class HeadFuzzTargets {

    private HeadFuzzTargets() {}

    /**
     * Input: a first line {@code major.minor status} (digits), then header lines {@code name: value}
     * (bytes as ISO-8859-1). A head {@link ResponseHeadCheck} accepts is HTTP/1.0 or 1.1, not a 101,
     * has at most {@value ResponseHeadCheck#MAX_HEADERS} fields and no control character in a value,
     * and is framed one way only: Transfer-Encoding exactly {@code chunked} (HTTP/1.1, no
     * Content-Length, not a 204 or 304), or Content-Lengths that are all the same number.
     */
    public static void responseHead(byte[] data) {
        String[] lines = new String(data, ISO_8859_1).split("\r?\n", -1);
        int major;
        int minor;
        int status;
        try {
            String[] first = lines[0].split("[. ]", 3);
            major = Integer.parseInt(first[0]);
            minor = Integer.parseInt(first[1]);
            status = Integer.parseInt(first[2]);
        } catch (RuntimeException notAStatusLine) {
            return; // the engines' parsers read these numbers
        }
        ResponseHeadCheck check = new ResponseHeadCheck();
        List<String[]> fields = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                String[] field = {
                    lines[i].substring(0, colon), lines[i].substring(colon + 1).strip()
                };
                fields.add(field);
                check.header(field[0], field[1]);
            }
        }
        String verdict = check.verdict(major, minor, status);
        if (verdict != null) {
            check(!verdict.isEmpty(), "an empty verdict", data);
            return;
        }
        check(major == 1 && (minor == 0 || minor == 1), "accepted HTTP/" + major + "." + minor, data);
        check(status != 101, "accepted a 101", data);
        check(fields.size() <= ResponseHeadCheck.MAX_HEADERS, "accepted " + fields.size() + " fields", data);
        String transferEncoding = null;
        BigInteger length = null;
        for (String[] field : fields) {
            for (char c : field[1].toCharArray()) {
                check((c >= 0x20 || c == '\t') && c != 0x7f, "accepted a control character in " + field[0], data);
            }
            String name = field[0].toLowerCase(Locale.ROOT);
            if (name.equals("transfer-encoding")) {
                transferEncoding = transferEncoding == null ? field[1] : transferEncoding + "," + field[1];
            } else if (name.equals("content-length")) {
                for (String element : field[1].split(",", -1)) {
                    BigInteger value = number(element.strip());
                    check(value != null, "accepted Content-Length: " + field[1], data);
                    check(length == null || length.equals(value), "accepted two Content-Lengths", data);
                    length = value;
                }
            }
        }
        if (transferEncoding != null) {
            check(transferEncoding.strip().equalsIgnoreCase("chunked"), "accepted TE " + transferEncoding, data);
            check(minor == 1, "accepted TE in HTTP/1.0", data);
            check(length == null, "accepted TE with Content-Length", data);
            check(status != 204 && status != 304, "accepted TE on a " + status, data);
        }
        check(status != 204 || length == null, "accepted Content-Length on a 204", data);
    }

    /**
     * Input: lines {@code version}, {@code target}, then header lines {@code name: value} (Host,
     * Transfer-Encoding and Content-Length count). {@link RequestFraming#check} answers 400, 501 or
     * 505, or lets through a head that is HTTP/1.0 or 1.1, has a target without control bytes, one
     * Host (none only in HTTP/1.0), a path or an absolute URI naming that Host, no fragment, and is framed one way only: Transfer-Encoding exactly {@code
     * chunked} (HTTP/1.1, no Content-Length) or Content-Lengths that are all the same number.
     */
    public static void requestFraming(byte[] data) {
        String[] lines = new String(data, ISO_8859_1).split("\r?\n", -1);
        if (lines.length < 2) {
            return;
        }
        List<String> hosts = new ArrayList<>();
        List<String> transferEncodings = new ArrayList<>();
        List<String> contentLengths = new ArrayList<>();
        for (int i = 2; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                String value = lines[i].substring(colon + 1).strip();
                switch (lines[i].substring(0, colon).toLowerCase(Locale.ROOT)) {
                    case "host" -> hosts.add(value);
                    case "transfer-encoding" -> transferEncodings.add(value);
                    case "content-length" -> contentLengths.add(value);
                    default -> {}
                }
            }
        }
        String version = lines[0];
        String target = lines[1];
        Optional<RequestFraming.Rejection> rejection = RequestFraming.check(
                new RequestFraming.Head(version, target, hosts, transferEncodings, contentLengths));
        if (rejection.isPresent()) {
            int status = rejection.get().status();
            check(status == 400 || status == 501 || status == 505, "answered " + status, data);
            check(rejection.get().errorBody().length > 0, "an empty error body", data);
            return;
        }
        check(version.equals("HTTP/1.1") || version.equals("HTTP/1.0"), "accepted " + version, data);
        for (char c : target.toCharArray()) {
            check(c > 0x20 && c != 0x7f, "accepted a control byte in the target", data);
            check(c != '#', "accepted a fragment in the target", data);
        }
        check(
                target.startsWith("/")
                        || (hosts.size() == 1
                                && target.toLowerCase(Locale.ROOT).matches("https?://[^/?#]*([/?].*)?")
                                && target.toLowerCase(Locale.ROOT)
                                        .replaceFirst("^https?://([^/?#]*).*$", "$1")
                                        .equals(hosts.getFirst().strip().toLowerCase(Locale.ROOT))),
                "accepted the target " + target + " for the Host " + hosts,
                data);
        check(hosts.size() == 1 || (hosts.isEmpty() && version.equals("HTTP/1.0")), "accepted hosts " + hosts, data);
        BigInteger length = null;
        for (String value : contentLengths) {
            for (String element : value.split(",", -1)) {
                BigInteger n = number(element.strip());
                check(n != null, "accepted Content-Length: " + value, data);
                check(length == null || length.equals(n), "accepted two Content-Lengths", data);
                length = n;
            }
        }
        if (!transferEncodings.isEmpty()) {
            List<String> codings = new ArrayList<>();
            for (String value : transferEncodings) {
                for (String element : value.split(",", -1)) {
                    if (!element.strip().isEmpty()) {
                        codings.add(element.strip().toLowerCase(Locale.ROOT));
                    }
                }
            }
            check(codings.equals(List.of("chunked")), "accepted Transfer-Encoding " + transferEncodings, data);
            check(version.equals("HTTP/1.1"), "accepted TE in HTTP/1.0", data);
            check(contentLengths.isEmpty(), "accepted TE with Content-Length", data);
        }
    }

    /** A decimal number of at most 18 digits, else null. */
    private static BigInteger number(String s) {
        if (s.isEmpty() || s.length() > 18 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return null;
        }
        return new BigInteger(s);
    }

    private static void check(boolean ok, String what, byte[] input) {
        if (!ok) {
            throw new AssertionError(what + " (input: " + new String(input, ISO_8859_1) + ")");
        }
    }
}
