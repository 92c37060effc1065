package dev.sluice.app;

import dev.sluice.observe.ExchangeEvent;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.PartEvent;
import dev.sluice.observe.UpstreamEvent;
import java.util.Optional;

/** The observers {@code sluice run} feeds: metrics, the access log, both, or none at all. */
final class Observers {

    private Observers() {}

    /** {@link GatewayObserver#NONE} when neither is present, so the engines read no clock. */
    static GatewayObserver of(Optional<? extends GatewayObserver> first, Optional<? extends GatewayObserver> second) {
        if (first.isEmpty() && second.isEmpty()) {
            return GatewayObserver.NONE;
        }
        if (second.isEmpty()) {
            return first.get();
        }
        if (first.isEmpty()) {
            return second.get();
        }
        GatewayObserver a = first.get();
        GatewayObserver b = second.get();
        return new GatewayObserver() {
            @Override
            public void exchange(ExchangeEvent event) {
                a.exchange(event);
                b.exchange(event);
            }

            @Override
            public void part(PartEvent event) {
                a.part(event);
                b.part(event);
            }

            @Override
            public void upstream(UpstreamEvent event) {
                a.upstream(event);
                b.upstream(event);
            }
        };
    }
}
