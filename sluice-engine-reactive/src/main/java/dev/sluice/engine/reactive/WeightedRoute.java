package dev.sluice.engine.reactive;

import dev.sluice.routing.RouteTable;
import dev.sluice.routing.WeightedChoice;
import io.netty.channel.Channel;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/** A weighted route ({@code backends:}): runs the side the core's {@link WeightedChoice} picks. */
final class WeightedRoute implements GatewayHandler.ReactiveRoute {

    private final WeightedChoice choice;
    private final GatewayHandler.ReactiveRoute[] sides; // in the order of the backends

    WeightedRoute(WeightedChoice choice, java.util.List<GatewayHandler.ReactiveRoute> sides) {
        this.choice = choice;
        this.sides = sides.toArray(GatewayHandler.ReactiveRoute[]::new);
    }

    @Override
    public Mono<Void> handle(
            ClientRequest in, HttpServerResponse response, RouteTable.Result.Matched match, Channel channel) {
        return sides[choice.pick(in.headers()::getAll)].handle(in, response, match, channel);
    }
}
