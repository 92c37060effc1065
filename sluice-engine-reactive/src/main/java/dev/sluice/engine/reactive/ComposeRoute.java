package dev.sluice.engine.reactive;

import dev.sluice.compose.ComposedHead;
import dev.sluice.compose.DeliveryNegotiation;
import dev.sluice.compose.JsonSplice;
import dev.sluice.compose.PartCache;
import dev.sluice.compose.PartRequest;
import dev.sluice.compose.ReadAheadBudget;
import dev.sluice.config.ComposeTarget;
import dev.sluice.config.ComposeTarget.Delivery;
import dev.sluice.config.PartConfig;
import dev.sluice.config.RouteConfig;
import dev.sluice.engine.FrontDoor;
import dev.sluice.http.HeaderRules;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.routing.RouteTable;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/** A {@code compose:} route: what every one of its compositions shares, built once. */
final class ComposeRoute {

    final ComposeTarget target;
    final List<PartConfig> parts;
    final Upstream[] upstreams; // by part index
    final JsonSplice splice;
    final HeaderRules rules;
    final int readAhead;
    final ReadAheadBudget budget; // the gateway's, shared by every composition
    final PartCache partCache; // the gateway's, or null: none
    final String id;
    final GatewayObserver observer;
    final PartRequest requests;
    private final ByteBuf[] firstKeys; // direct and unreleasable: spliced next to direct part buffers
    private final ByteBuf[] laterKeys;

    ComposeRoute(
            RouteConfig route,
            ComposeTarget target,
            Map<String, Upstream> upstreams,
            int readAhead,
            ReadAheadBudget budget,
            GatewayObserver observer,
            PartCache partCache) {
        this.partCache = partCache;
        this.id = route.id();
        this.budget = budget;
        this.observer = observer;
        this.target = target;
        this.parts = target.parts();
        this.upstreams = new Upstream[parts.size()];
        for (int i = 0; i < parts.size(); i++) {
            this.upstreams[i] = upstreams.get(parts.get(i).upstream());
        }
        this.requests = new PartRequest(
                parts,
                java.util.Arrays.stream(this.upstreams)
                        .map(u -> u == null ? "" : u.basePath()) // undeclared: fails per request
                        .toList());
        this.splice = new JsonSplice(parts.stream().map(PartConfig::name).toList());
        this.firstKeys = new ByteBuf[parts.size()];
        this.laterKeys = new ByteBuf[parts.size()];
        for (int i = 0; i < parts.size(); i++) {
            firstKeys[i] = constant(splice.key(i, true));
            laterKeys[i] = constant(splice.key(i, false));
        }
        this.rules = HeaderRules.of(route.filters());
        this.readAhead = Math.max(1, readAhead);
    }

    /**
     * The key that opens part {@code index}, as a buffer the caller may write and release. It is
     * direct, like the parts' buffers, so a key and a part buffer written one after the other go out
     * in one gathering write with no copy. On h2 they are written as two buffers, never gathered into
     * one composite: the frame writer slices what is written, and the io_uring transport wrote a
     * slice of a composite (a direct buffer without one memory address) from a wrong address
     * (Http2Contract's fifty compositions on one h2c connection). On HTTP/1.x a {@link Composition}
     * gathers a turn's buffers into one composite, which is written whole.
     */
    ByteBuf key(int index, boolean first) {
        return (first ? firstKeys[index] : laterKeys[index]).duplicate();
    }

    private static ByteBuf constant(byte[] bytes) {
        ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
        return Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(direct));
    }

    /**
     * Expands every part's path before any part is sent.
     *
     * @throws dev.sluice.routing.PathTemplate.ExpansionException when a template lacks a value
     *     (the caller answers 400)
     */
    Mono<Void> handle(ClientRequest in, HttpServerResponse response, RouteTable.Result.Matched match, Channel channel) {
        String accept = target.negotiatesDelivery()
                ? String.join(",", in.request.requestHeaders().getAll(HttpHeaderNames.ACCEPT))
                : null;
        Delivery delivery = DeliveryNegotiation.choose(target, accept).orElse(null);
        if (delivery == null) {
            return GatewayHandler.render(in, response, FrontDoor.notAcceptable(target, id));
        }
        if (ComposedHead.asked(in.method)) { // the head alone: no part is called
            ComposedHead.fields(target, delivery, rules, response.responseHeaders()::set, response::addHeader);
            return Responses.empty(response, ComposedHead.STATUS);
        }
        PartRequest.Targets targets = requests.expand(match.variables(), in.query(), match.remainder());
        return new Composition(this, in, response, channel, targets, delivery).run();
    }
}
