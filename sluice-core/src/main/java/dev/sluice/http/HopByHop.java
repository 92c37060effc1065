package dev.sluice.http;

import java.util.Locale;
import java.util.Set;

/** Hop-by-hop headers (RFC 9110 §7.6.1), which a proxy must not forward. */
public final class HopByHop {

  private static final Set<String> NAMES =
      Set.of("connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection",
          "te", "trailer", "transfer-encoding", "upgrade");

  private HopByHop() {}

  /** @param lowerCaseName a header name in lower case */
  public static boolean is(String lowerCaseName) {
    return NAMES.contains(lowerCaseName);
  }

  /** The hop-by-hop names by definition, in lower case. */
  static Set<String> names() {
    return NAMES;
  }

  /**
   * Whether the message's {@code Connection} header lists {@code lowerCaseName}.
   *
   * @param connection the Connection header value, or null
   */
  static boolean listed(String lowerCaseName, String connection) {
    if (connection == null) {
      return false;
    }
    for (String token : connection.split(",")) {
      if (token.trim().equalsIgnoreCase(lowerCaseName)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code name} is hop-by-hop, either by definition or because the message's {@code
   * Connection} header lists it.
   *
   * @param connection the Connection header value, or null
   */
  public static boolean is(String name, String connection) {
    String lower = name.toLowerCase(Locale.ROOT);
    return NAMES.contains(lower) || listed(lower, connection);
  }
}
