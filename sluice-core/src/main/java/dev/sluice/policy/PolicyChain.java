package dev.sluice.policy;

import dev.sluice.auth.ApiKeyPolicy;
import dev.sluice.auth.JwtPolicy;
import dev.sluice.config.FilterConfig;
import dev.sluice.config.RouteConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A route's inbound policies, in the order its {@code filters} list them, asked as one: the first
 * that rejects ends the chain (the permits taken before it are released), a pending one resumes the
 * chain when it decides, and a request that passes them all proceeds holding every permit.
 */
public final class PolicyChain {

    /** No policy: every request proceeds, at no cost. */
    public static final PolicyChain NONE = new PolicyChain(new InboundPolicy[0]);

    private final InboundPolicy[] policies;
    private final ClientAddress client; // who the route's client is (its trusted proxies)

    public PolicyChain(InboundPolicy[] policies) {
        this(policies, ClientAddress.PEER);
    }

    private PolicyChain(InboundPolicy[] policies, ClientAddress client) {
        this.policies = policies.clone();
        this.client = client;
    }

    /** The policies a route's filters configure (header rewrites are {@code HeaderRules}', not policies). */
    public static PolicyChain of(RouteConfig route) {
        return of(route, PolicyResources.none());
    }

    /**
     * The policies a route's filters configure, sharing the gateway's {@code resources} (its Redis
     * store). A {@code cors} filter is asked first wherever it is listed: a browser's preflight
     * carries no credentials, and a later refusal (a {@code 401}, a {@code 429}) must carry its
     * fields for a page to read it. Every policy that asks for the client's address gets the route's
     * {@link ClientAddress}. A {@code custom} filter's policy is made anew by its factory for each
     * chain, that is for each snapshot ({@link CustomPolicy}): a reload's settings take effect in new
     * instances.
     */
    public static PolicyChain of(RouteConfig route, PolicyResources resources) {
        List<InboundPolicy> policies = new ArrayList<>();
        List<FilterConfig> filters = route.filters();
        ClientAddress client = ClientAddress.of(route);
        for (int i = 0; i < filters.size(); i++) {
            FilterConfig filter = filters.get(i);
            switch (filter) {
                case FilterConfig.RateLimit r -> policies.add(resources.rateLimit(r, route.id(), i, client));
                case FilterConfig.Concurrency c ->
                    policies.add(new ConcurrencyLimit(c.max(), c.queue(), c.queueTimeout()));
                case FilterConfig.RequestHeaders h -> {}
                case FilterConfig.MaxBody b -> {}
                case FilterConfig.Jwt j -> policies.add(JwtPolicy.of(j));
                case FilterConfig.ApiKey a -> policies.add(new ApiKeyPolicy(a));
                case FilterConfig.IpFilter f -> {
                    if (!f.allow().isEmpty() || !f.deny().isEmpty()) { // else it only names trusted proxies
                        policies.add(new IpFilter(f, client));
                    }
                }
                case FilterConfig.Cors c -> policies.addFirst(new Cors(c)); // a preflight carries no credentials
                case FilterConfig.Custom c -> policies.add(CustomPolicy.of(c, route.id()));
                case FilterConfig.ResponseHeaders h -> {}
                case FilterConfig.Compression c -> {}
            }
        }
        return policies.isEmpty() && client == ClientAddress.PEER
                ? NONE
                : new PolicyChain(policies.toArray(InboundPolicy[]::new), client);
    }

    /**
     * The client of {@code request} as the route sees it ({@link ClientAddress}: through its trusted
     * proxies), what its access log line and spans name; the connection's peer on a route without
     * trusted proxies.
     */
    public String client(InboundPolicy.Inbound request) {
        return client == ClientAddress.PEER ? request.clientAddress() : client.resolve(request);
    }

    /** Notes on {@code tally} (null: nobody listens) the client {@code request} is from, when the route resolves one. */
    public void noteClient(dev.sluice.observe.ExchangeTally tally, InboundPolicy.Inbound request) {
        if (tally != null && client != ClientAddress.PEER) {
            tally.client(client.resolve(request));
        }
    }

    /** This chain with {@code first} asked before its own policies. */
    public PolicyChain after(InboundPolicy first) {
        InboundPolicy[] all = new InboundPolicy[policies.length + 1];
        all[0] = first;
        System.arraycopy(policies, 0, all, 1, policies.length);
        return new PolicyChain(all, client);
    }

    /** No policy to ask and no client to resolve: the engine may skip {@link #admit}. */
    public boolean isEmpty() {
        return policies.length == 0 && client == ClientAddress.PEER;
    }

    /** Asks every policy about {@code request}. */
    public Decision admit(InboundPolicy.Inbound request) {
        return from(0, request, Decision.Permit.NONE, UpstreamEdits.NONE, ResponseEdits.NONE);
    }

    /**
     * Asks the policies from {@code start} on. A policy that proceeds with attributes hands them to
     * the policies after it ({@code request} is wrapped); the edits of every policy that proceeds
     * are combined, later ones winning. A refusal or answer after some policies proceeded carries
     * their response edits (a {@code 401} after {@code cors} has its {@code
     * Access-Control-Allow-Origin}).
     */
    private Decision from(
            int start,
            InboundPolicy.Inbound request,
            Decision.Permit held,
            UpstreamEdits edits,
            ResponseEdits response) {
        for (int i = start; i < policies.length; i++) {
            Decision decision = policies[i].admit(request);
            switch (decision) {
                case Decision.Proceed p -> {
                    held = held.and(p.permit());
                    if (!p.attributes().isEmpty()) {
                        request = new Attributed(request, p.attributes());
                    }
                    edits = edits.and(p.edits());
                    response = response.and(p.response());
                }
                case Decision.Reject r -> {
                    held.release();
                    return withResponse(r.by(policies[i].name()), response);
                }
                case Decision.Answer a -> {
                    held.release();
                    return withResponse(a, response);
                }
                case Decision.Pending p -> {
                    return resumeAfter(p, i + 1, request, held, edits, response);
                }
            }
        }
        if (request instanceof Attributed attributed) {
            return new Decision.Proceed(held, attributed.all(), edits, response);
        }
        return held == Decision.Permit.NONE && edits.isEmpty() && response.isEmpty()
                ? Decision.Proceed.FREELY
                : new Decision.Proceed(held, Map.of(), edits, response);
    }

    /** A refusal or answer with the response edits of the policies that proceeded before it. */
    private static Decision withResponse(Decision decision, ResponseEdits response) {
        if (response.isEmpty()) {
            return decision;
        }
        return switch (decision) {
            case Decision.Reject r ->
                new Decision.Reject(r.status(), r.code(), r.message(), response.onto(r.headers()), r.policy());
            case Decision.Answer a -> new Decision.Answer(a.status(), response.onto(a.headers()));
            default -> decision;
        };
    }

    /**
     * The chain goes on from {@code next} once {@code pending} decides. Abandoning the returned
     * decision (the client went away) cancels the wait it is in, and whatever permits were taken are
     * released, now or when the decision comes.
     */
    private Decision resumeAfter(
            Decision.Pending pending,
            int next,
            InboundPolicy.Inbound request,
            Decision.Permit held,
            UpstreamEdits edits,
            ResponseEdits response) {
        CompletableFuture<Decision> outer = new CompletableFuture<>();
        CompletableFuture<Decision> inner = pending.decision().toCompletableFuture();
        outer.whenComplete((d, e) -> {
            if (outer.isCancelled()) {
                inner.cancel(false);
            }
        });
        inner.whenComplete((later, error) -> {
            Decision resumed;
            if (error != null) {
                held.release();
                resumed = FAILED.by(policies[next - 1].name());
            } else {
                resumed = switch (later) {
                    case Decision.Proceed q ->
                        from(
                                next,
                                q.attributes().isEmpty() ? request : new Attributed(request, q.attributes()),
                                held.and(q.permit()),
                                edits.and(q.edits()),
                                response.and(q.response()));
                    case Decision.Reject r -> {
                        held.release();
                        yield withResponse(r.by(policies[next - 1].name()), response);
                    }
                    case Decision.Answer a -> {
                        held.release();
                        yield withResponse(a, response);
                    }
                    case Decision.Pending q -> { // a policy must settle on Proceed or Reject
                        q.abandon();
                        held.release();
                        yield FAILED.by(policies[next - 1].name());
                    }
                };
            }
            settle(outer, resumed);
        });
        return new Decision.Pending(outer);
    }

    /** A request as the policies after one that proceeded with attributes see it. */
    private record Attributed(InboundPolicy.Inbound request, Map<String, String> attributes)
            implements InboundPolicy.Inbound {
        @Override
        public String method() {
            return request.method();
        }

        @Override
        public String path() {
            return request.path();
        }

        @Override
        public String header(String name) {
            return request.header(name);
        }

        @Override
        public String route() {
            return request.route();
        }

        @Override
        public String query() {
            return request.query();
        }

        @Override
        public String clientAddress() {
            return request.clientAddress();
        }

        @Override
        public String attribute(String name) {
            String value = attributes.get(name);
            return value != null ? value : request.attribute(name);
        }

        /** Every attribute of the chain so far, later policies' winning. */
        Map<String, String> all() {
            Map<String, String> all = new HashMap<>();
            collect(this, all);
            return Map.copyOf(all);
        }

        private static void collect(InboundPolicy.Inbound request, Map<String, String> into) {
            if (request instanceof Attributed a) {
                collect(a.request, into);
                a.attributes.forEach((k, v) -> {
                    if (k != null && v != null) {
                        into.put(k, v);
                    }
                });
            }
        }
    }

    /** Completes {@code outer} with {@code decision}, or releases it when nobody waits any more. */
    private static void settle(CompletableFuture<Decision> outer, Decision decision) {
        if (decision instanceof Decision.Pending p) { // the chain met another pending policy
            CompletableFuture<Decision> inner = p.decision().toCompletableFuture();
            outer.whenComplete((d, e) -> {
                if (outer.isCancelled()) {
                    inner.cancel(false);
                }
            });
            inner.whenComplete((d, e) -> settle(outer, e != null ? FAILED : d));
            return;
        }
        if (!outer.complete(decision)) {
            Decision.release(decision);
        }
    }

    /** A pending decision that failed instead of deciding. */
    static final Decision.Reject FAILED =
            new Decision.Reject(503, "policy_failed", "a policy could not decide about this request", Map.of());
}
