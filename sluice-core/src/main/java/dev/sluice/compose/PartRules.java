package dev.sluice.compose;

import java.util.Optional;

/** Whether an upstream's answer can be spliced into a composed response. */
public final class PartRules {

    private PartRules() {}

    /**
     * @param status the upstream status code
     * @param contentType the upstream Content-Type header, or null
     * @return why the part cannot be spliced, or empty when it can
     */
    public static Optional<String> rejection(int status, String contentType) {
        if (status < 200 || status > 299) {
            return Optional.of("upstream status " + status);
        }
        if (!isJson(contentType)) {
            return Optional.of("not JSON: Content-Type " + (contentType == null ? "missing" : "'" + contentType + "'"));
        }
        return Optional.empty();
    }

    /** {@code application/json}, or any {@code +json} media type, parameters ignored. */
    public static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        int semi = contentType.indexOf(';');
        String type = (semi < 0 ? contentType : contentType.substring(0, semi)).trim();
        return type.equalsIgnoreCase("application/json")
                || (type.length() > 5 && type.regionMatches(true, type.length() - 5, "+json", 0, 5));
    }
}
