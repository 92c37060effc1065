package dev.sluice.app;

import dev.sluice.observe.ClientProtocolError;
import dev.sluice.observe.ExchangeEvent;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.MirrorEvent;
import dev.sluice.observe.PartEvent;
import dev.sluice.observe.UpstreamEvent;
import java.util.Arrays;
import java.util.Optional;

/** The observers {@code sluice run} feeds: metrics, the access log, span export, any of them, or none at all. */
final class Observers {

    private Observers() {}

    /** {@link GatewayObserver#NONE} when none is present, so the engines read no clock. */
    @SafeVarargs
    static GatewayObserver of(Optional<? extends GatewayObserver>... present) {
        GatewayObserver[] all = Arrays.stream(present).flatMap(Optional::stream).toArray(GatewayObserver[]::new);
        return switch (all.length) {
            case 0 -> GatewayObserver.NONE;
            case 1 -> all[0];
            default ->
                new GatewayObserver() {
                    @Override
                    public void exchange(ExchangeEvent event) {
                        for (GatewayObserver o : all) {
                            o.exchange(event);
                        }
                    }

                    @Override
                    public void part(PartEvent event) {
                        for (GatewayObserver o : all) {
                            o.part(event);
                        }
                    }

                    @Override
                    public void upstream(UpstreamEvent event) {
                        for (GatewayObserver o : all) {
                            o.upstream(event);
                        }
                    }

                    @Override
                    public void mirror(MirrorEvent event) {
                        for (GatewayObserver o : all) {
                            o.mirror(event);
                        }
                    }

                    @Override
                    public void clientProtocolError(ClientProtocolError kind) {
                        for (GatewayObserver o : all) {
                            o.clientProtocolError(kind);
                        }
                    }

                    @Override
                    public boolean recordsTraces() {
                        return Arrays.stream(all).anyMatch(GatewayObserver::recordsTraces);
                    }
                };
        };
    }
}
