package dev.sluice.compose;

import dev.sluice.config.ComposeTarget;
import dev.sluice.config.ComposeTarget.Delivery;
import dev.sluice.http.ErrorBody;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which {@link Delivery} a composed response uses, decided once for every engine from the route's
 * {@code delivery} and the request's {@code Accept} (RFC 9110 §12.5.1): each format takes the
 * quality of the most specific media range that matches it ({@code application/x-ndjson} over
 * {@code application/*} over {@code *}{@code /*}); the highest quality above 0 wins, ties go to the
 * route's order. No {@code Accept}: the route's first format. A route with one format serves it
 * whatever {@code Accept} says (as the JSON object always was).
 */
public final class DeliveryNegotiation {

    private DeliveryNegotiation() {}

    /**
     * The format to deliver, or empty when the route {@linkplain ComposeTarget#refusesUnacceptable()
     * refuses} an {@code Accept} that allows none of its formats (answer 406 with {@link
     * #notAcceptableBody}).
     *
     * @param accept the request's Accept header values joined with {@code ,}, or null
     */
    public static Optional<Delivery> choose(ComposeTarget target, String accept) {
        List<Delivery> formats = target.delivery();
        if (!target.negotiatesDelivery() || accept == null || accept.isBlank()) {
            return Optional.of(formats.getFirst());
        }
        Delivery best = null;
        double bestQ = 0;
        for (Delivery d : formats) {
            double q = quality(d.mediaType(), accept);
            if (q > bestQ) {
                best = d;
                bestQ = q;
            }
        }
        if (best != null) {
            return Optional.of(best);
        }
        return target.refusesUnacceptable() ? Optional.empty() : Optional.of(formats.getFirst());
    }

    /** The 406 answer's JSON body, naming what the route serves. */
    public static byte[] notAcceptableBody(ComposeTarget target) {
        return ErrorBody.of(406, NOT_ACCEPTABLE, notAcceptableMessage(target));
    }

    /** The 406 answer's error code. */
    public static final String NOT_ACCEPTABLE = "not_acceptable";

    /** The 406 answer's message: the media types the route serves. */
    public static String notAcceptableMessage(ComposeTarget target) {
        StringBuilder sb = new StringBuilder("Accept allows none of this route's formats: ");
        for (int i = 0; i < target.delivery().size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(target.delivery().get(i).mediaType());
        }
        return sb.toString();
    }

    /** The quality {@code accept} gives {@code mediaType}: that of its most specific matching range, 0 if none. */
    static double quality(String mediaType, String accept) {
        int slash = mediaType.indexOf('/');
        String type = mediaType.substring(0, slash);
        int specificity = 0;
        double q = 0;
        for (String range : accept.split(",")) {
            String[] params = range.split(";");
            String r = params[0].trim().toLowerCase(Locale.ROOT);
            int s;
            if (r.equals(mediaType)) {
                s = 3;
            } else if (r.equals(type + "/*")) {
                s = 2;
            } else if (r.equals("*/*")) {
                s = 1;
            } else {
                continue;
            }
            if (s > specificity) {
                specificity = s;
                q = qValue(params);
            }
        }
        return q;
    }

    private static double qValue(String[] params) {
        for (int i = 1; i < params.length; i++) {
            String p = params[i].trim();
            if (p.length() > 2 && (p.charAt(0) == 'q' || p.charAt(0) == 'Q') && p.charAt(1) == '=') {
                try {
                    double q = Double.parseDouble(p.substring(2).trim());
                    return q >= 0 && q <= 1 ? q : 0;
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 1;
    }
}
