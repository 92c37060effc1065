package dev.sluice.policy;

import static java.util.Objects.requireNonNull;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.Optional;

/**
 * An IP range in CIDR notation ({@code 10.0.0.0/8}, {@code 2001:db8::/32}) or one address. Parsed
 * from literals only: never a DNS look-up. An IPv4-mapped IPv6 address ({@code ::ffff:10.1.2.3}) is
 * the IPv4 address it maps.
 */
public final class Cidr {

    private static final java.util.regex.Pattern IPV4 = java.util.regex.Pattern.compile(
            "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");

    private final byte[] network;
    private final int prefix;
    private final String text;

    private Cidr(byte[] network, int prefix, String text) {
        this.network = network;
        this.prefix = prefix;
        this.text = text;
    }

    /** {@code a.b.c.d/n}, {@code x::y/n} or a single address; empty when it is not one. */
    public static Optional<Cidr> parse(String text) {
        requireNonNull(text, "text");
        String t = text.strip();
        int slash = t.indexOf('/');
        Optional<byte[]> address = address(slash < 0 ? t : t.substring(0, slash));
        if (address.isEmpty()) {
            return Optional.empty();
        }
        byte[] bytes = address.get();
        int bits = bytes.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            String p = t.substring(slash + 1);
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit)) {
                return Optional.empty();
            }
            prefix = Integer.parseInt(p);
            if (prefix > bits) {
                return Optional.empty();
            }
        }
        return Optional.of(new Cidr(mask(bytes, prefix), prefix, t));
    }

    /** Whether {@code literal} (an IP address as text) is in this range; false for anything else. */
    public boolean contains(String literal) {
        Optional<byte[]> address = literal == null ? Optional.empty() : address(literal.strip());
        if (address.isEmpty() || address.get().length != network.length) {
            return false;
        }
        return Arrays.equals(mask(address.get(), prefix), network);
    }

    /** The address's bytes (4 for IPv4, and for IPv4-mapped IPv6; 16 otherwise), or empty. */
    static Optional<byte[]> address(String literal) {
        String s = literal;
        if (s.startsWith("[") && s.endsWith("]")) {
            s = s.substring(1, s.length() - 1);
        }
        if (s.isEmpty() || (s.indexOf(':') < 0 && !IPV4.matcher(s).matches())) {
            return Optional.empty(); // four dotted decimals or IPv6: no name, no short or octal forms
        }
        InetAddress a;
        try {
            a = InetAddress.ofLiteral(s);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        byte[] bytes = a.getAddress();
        if (a instanceof Inet6Address && isMapped(bytes)) {
            return Optional.of(Arrays.copyOfRange(bytes, 12, 16));
        }
        return Optional.of(bytes);
    }

    private static boolean isMapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return b[10] == (byte) 0xff && b[11] == (byte) 0xff;
    }

    private static byte[] mask(byte[] address, int prefix) {
        byte[] out = address.clone();
        for (int i = 0; i < out.length; i++) {
            int bits = Math.max(0, Math.min(8, prefix - i * 8));
            out[i] = (byte) (out[i] & (bits == 0 ? 0 : (0xff << (8 - bits))));
        }
        return out;
    }

    @Override
    public String toString() {
        return text;
    }
}
