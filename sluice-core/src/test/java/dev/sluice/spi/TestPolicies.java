package dev.sluice.spi;

import dev.sluice.policy.Decision;
import dev.sluice.policy.InboundPolicy;
import dev.sluice.policy.UpstreamEdits;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** Policy factories the core's tests find through ServiceLoader (src/test/resources/META-INF/services). */
public final class TestPolicies {

    private TestPolicies() {}

    /**
     * {@code test-stamp}: sets upstream header {@code header} to {@code value} for a request that has
     * header {@code x-pass}, refuses others 403; counts the policies it made.
     */
    public static final class Stamp implements PolicyFactory {
        public static final AtomicInteger MADE = new AtomicInteger();

        @Override
        public String name() {
            return "test-stamp";
        }

        @Override
        public InboundPolicy create(PolicySettings settings) {
            settings.allowOnly("header", "value", "tiers");
            String header = settings.require("header", "a header name");
            String value = settings.require("value");
            settings.strings("tiers");
            MADE.incrementAndGet();
            return request -> request.header("x-pass") == null
                    ? new Decision.Reject(403, "forbidden", "no pass", Map.of())
                    : Decision.Proceed.with(Map.of(), UpstreamEdits.of(Map.of(header, value), List.of(), List.of()));
        }
    }

    /** {@code test-throws}: a policy that throws, quoting the request; {@code refuse: true} makes create throw. */
    public static final class Throws implements PolicyFactory {
        @Override
        public String name() {
            return "test-throws";
        }

        @Override
        public InboundPolicy create(PolicySettings settings) {
            if (settings.bool("refuse", false)) {
                throw new IllegalStateException("not today");
            }
            return request -> {
                throw new IllegalStateException("bad tenant " + request.header("x-tenant"));
            };
        }
    }

    /** One of two factories named {@code test-twice}. */
    public static final class TwiceA implements PolicyFactory {
        @Override
        public String name() {
            return "test-twice";
        }

        @Override
        public InboundPolicy create(PolicySettings settings) {
            return request -> Decision.Proceed.FREELY;
        }
    }

    /** The other factory named {@code test-twice}. */
    public static final class TwiceB implements PolicyFactory {
        @Override
        public String name() {
            return "test-twice";
        }

        @Override
        public InboundPolicy create(PolicySettings settings) {
            return request -> Decision.Proceed.FREELY;
        }
    }
}
