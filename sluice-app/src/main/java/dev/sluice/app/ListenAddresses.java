package dev.sluice.app;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The URLs a listener bound to {@code host:port} is reached at, for the started line: the host itself
 * when it is one address; every address of the machine's interfaces that are up when it is a wildcard
 * ({@code 0.0.0.0}: the IPv4 ones; {@code ::}: all), loopback first.
 */
final class ListenAddresses {

    private ListenAddresses() {}

    static boolean isWildcard(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]");
    }

    static List<URI> urls(String host, int port) {
        return urls("http", host, port);
    }

    /** As {@link #urls(String, int)}, for a listener of {@code scheme} ({@code http}, {@code https}). */
    static List<URI> urls(String scheme, String host, int port) {
        if (!isWildcard(host)) {
            return List.of(url(scheme, host, port));
        }
        boolean ipv4Only = host.equals("0.0.0.0");
        List<InetAddress> loopback = new ArrayList<>();
        List<InetAddress> others = new ArrayList<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp()) {
                    continue;
                }
                for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                    if (ipv4Only && !(address instanceof Inet4Address) || address.isLinkLocalAddress()) {
                        continue;
                    }
                    (address.isLoopbackAddress() ? loopback : others).add(address);
                }
            }
        } catch (SocketException e) {
            // no interface list: fall back to loopback below
        }
        if (loopback.isEmpty() && others.isEmpty()) {
            return List.of(url(scheme, "127.0.0.1", port));
        }
        List<URI> urls = new ArrayList<>();
        loopback.sort((a, b) -> Boolean.compare(!(a instanceof Inet4Address), !(b instanceof Inet4Address)));
        for (InetAddress address : loopback) {
            urls.add(url(scheme, address.getHostAddress(), port));
        }
        for (InetAddress address : others) {
            urls.add(url(scheme, address.getHostAddress(), port));
        }
        return urls;
    }

    /** {@code host:port} as written in a URL's authority ({@code [::1]:8080} for IPv6). */
    static String authority(String host, int port) {
        String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        int zone = bare.indexOf('%');
        if (zone >= 0) {
            bare = bare.substring(0, zone);
        }
        return (bare.indexOf(':') >= 0 ? "[" + bare + "]" : bare) + ":" + port;
    }

    private static URI url(String scheme, String host, int port) {
        return URI.create(scheme + "://" + authority(host, port));
    }
}
