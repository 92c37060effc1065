package dev.sluice.policy;

import dev.sluice.config.FilterConfig;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A team's own policy ({@code dev.sluice.spi}) as the chain asks it: made from its {@code custom}
 * filter for one snapshot, and kept from harming the gateway. A policy that throws, or decides
 * nothing (null), gets the request answered {@code 500 policy_failed} (a {@link Decision.Reject}, so
 * the permits of the policies before it are released as for any refusal) and the gateway serves on.
 * The first such failure of an instance is logged at ERROR with the exception's class and stack
 * trace, never its message, which may quote the request; later ones are not logged again.
 */
final class CustomPolicy implements InboundPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(CustomPolicy.class);

    private final InboundPolicy policy;
    private final String name;
    private final String route;
    private final Decision.Reject failed;
    private final AtomicBoolean logged = new AtomicBoolean();

    private CustomPolicy(InboundPolicy policy, String name, String route) {
        this.policy = policy;
        this.name = name;
        this.route = route;
        this.failed = new Decision.Reject(
                500, "policy_failed", "the route's policy '" + name + "' failed on this request", Map.of());
    }

    /** A new instance of {@code filter}'s policy, for route {@code route}. */
    static CustomPolicy of(FilterConfig.Custom filter, String route) {
        InboundPolicy made = filter.factory().create(filter.settings());
        if (made == null) {
            throw new IllegalStateException("custom policy '" + filter.policy() + "' on route '" + route
                    + "': its factory made no policy (expected: an InboundPolicy)");
        }
        return new CustomPolicy(made, filter.policy(), route);
    }

    @Override
    public Decision admit(Inbound request) {
        Decision decision;
        try {
            decision = policy.admit(request);
        } catch (RuntimeException | LinkageError e) {
            return failed(e);
        }
        return decision != null ? decision : failed(null);
    }

    @Override
    public String name() {
        return name;
    }

    private Decision failed(Throwable failure) {
        if (logged.compareAndSet(false, true)) {
            if (failure == null) {
                LOG.error(
                        "custom policy '{}' on route '{}' decided nothing (null); answered 500 policy_failed"
                                + " (logged once until the configuration is reloaded)",
                        name,
                        route);
            } else {
                LOG.error(
                        "custom policy '{}' on route '{}' threw {}; answered 500 policy_failed (logged once until"
                                + " the configuration is reloaded; the exception's message is left out: it may"
                                + " quote the request)",
                        name,
                        route,
                        failure.getClass().getName(),
                        Scrubbed.of(failure));
            }
        }
        return failed;
    }

    /** An exception's class and stack trace, causes included, without any message. */
    private static final class Scrubbed extends RuntimeException {
        private Scrubbed(Throwable failure, Scrubbed cause) {
            super(failure.getClass().getName(), cause, false, true);
            setStackTrace(failure.getStackTrace());
        }

        static Scrubbed of(Throwable failure) {
            return of(failure, 0);
        }

        private static Scrubbed of(Throwable failure, int depth) {
            Throwable cause = failure.getCause();
            boolean more = cause != null && cause != failure && depth < 8; // a cycle of causes ends here
            return new Scrubbed(failure, more ? of(cause, depth + 1) : null);
        }
    }
}
