package dev.sluice.http;

import dev.sluice.config.FilterConfig;
import dev.sluice.config.RouteConfig;
import dev.sluice.config.ServerLimits;
import java.util.Optional;

/**
 * How large a request body a route takes: its {@code max-body} filter, else {@code
 * server.limits.max-body}. A declared Content-Length over it is refused before any upstream is
 * asked; a chunked body is counted as it streams, and the upstream request is aborted (never ended)
 * when the count passes it, so that no upstream takes the cut-off body for a whole one.
 */
public final class BodyLimit {

    public static final int STATUS = 413;
    public static final String CODE = "content_too_large";

    private BodyLimit() {}

    /** The route's limit in bytes, or {@link ServerLimits#UNLIMITED}. */
    public static long of(RouteConfig route, ServerLimits server) {
        long limit = server.maxBody();
        for (FilterConfig filter : route.filters()) {
            if (filter instanceof FilterConfig.MaxBody max) {
                limit = max.bytes();
            }
        }
        return limit;
    }

    /** Whether {@code bytes} of body pass {@code limit}. */
    public static boolean exceeds(long bytes, long limit) {
        return limit != ServerLimits.UNLIMITED && bytes > limit;
    }

    /** The refusal of a body that declared, or reached, more than {@code limit} bytes. */
    public static Optional<RequestFraming.Rejection> check(long declaredLength, long limit) {
        return exceeds(declaredLength, limit) ? Optional.of(rejection(limit)) : Optional.empty();
    }

    public static RequestFraming.Rejection rejection(long limit) {
        return new RequestFraming.Rejection(
                STATUS, CODE, "the request body is larger than this route takes (" + limit + " bytes)");
    }

    /** Raised by a request body stream that passed its limit: the upstream exchange is aborted. */
    public static final class Exceeded extends RuntimeException implements FailureAnswer.Decided {
        private final long limit;

        public Exceeded(long limit) {
            super("the request body is larger than this route takes (" + limit + " bytes)", null, false, false);
            this.limit = limit;
        }

        public RequestFraming.Rejection rejection() {
            return BodyLimit.rejection(limit);
        }

        @Override
        public int status() {
            return STATUS;
        }

        @Override
        public String code() {
            return CODE;
        }
    }
}
