package dev.sluice.engine;

import static java.util.Objects.requireNonNull;

import dev.sluice.compose.DeliveryNegotiation;
import dev.sluice.config.AnswerTarget;
import dev.sluice.config.ComposeTarget;
import dev.sluice.http.BodyLimit;
import dev.sluice.http.ErrorBody;
import dev.sluice.http.RequestFraming;
import dev.sluice.http.WebSocketUpgrade;
import dev.sluice.policy.Decision;
import dev.sluice.routing.RouteTable;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * What happens to a request whose head passed {@link RequestFraming}: the one front door every
 * engine asks, as Helidon's filter chain returns one result. The engine renders an {@link Answer}
 * (status, headers, JSON body, whether the connection closes) and runs the route of an {@link
 * Enter}; once the route's policies decided, {@link #decided} turns their rejection or answer into
 * an {@link Answer} too, so that an engine has one way to write every answer the gateway gives.
 *
 * <pre>
 *   head ──► admit ──┬─► Answer   404 not_found, 405 + Allow, 400 bad path,
 *                    │             413 declared body over max-body (closes), 400 WebSocket refusal
 *                    └─► Enter    the compiled route, its match, a WebSocket tunnel asked
 *   Enter ──► policies ──► decided ──┬─► Answer   a policy's Reject (refusedBy) or Answer
 *                                    └─► null     Proceed (run the route), Pending (wait, ask again)
 * </pre>
 */
public final class FrontDoor {

    private FrontDoor() {}

    /**
     * What the front door reads of a request head.
     *
     * @param method the request method
     * @param version the protocol as the engine names it ({@code HTTP/1.1}, {@code HTTP/2.0})
     * @param path the raw path ({@link RouteTable} normalises it)
     * @param query the raw query, without the '?', or null when the target has none (routes may match
     *     on its parameters)
     * @param header the first value of a header by name (any case), or null
     * @param headers every value of a header by name (any case), an empty list when absent
     */
    public record Head(
            String method,
            String version,
            String path,
            String query,
            Function<String, String> header,
            Function<String, List<String>> headers) {
        public Head {
            requireNonNull(method, "method");
            requireNonNull(version, "version");
            requireNonNull(path, "path");
            requireNonNull(header, "header");
            requireNonNull(headers, "headers");
        }

        /** A head whose target has no query. */
        public Head(
                String method,
                String version,
                String path,
                Function<String, String> header,
                Function<String, List<String>> headers) {
            this(method, version, path, null, header, headers);
        }
    }

    /** The front door's outcome for a request: an answer, or the route to run. */
    public sealed interface Admission<H> {
        /** The matched route's id, empty when no route matched (for the request's event). */
        String route();
    }

    /**
     * An answer the gateway gives itself, before or instead of a route.
     *
     * @param status the status
     * @param body the body: a JSON error body ({@link ErrorBody#CONTENT_TYPE}) or a {@code respond}
     *     route's; empty for none (a policy's answer, a CORS preflight's, a redirect)
     * @param headers header fields to set (405's {@code Allow}, a policy's, a redirect's {@code Location})
     * @param closes the connection closes after it: the request's body is left unread
     * @param route the matched route's id, empty when no route matched
     * @param refusedBy the policy that refused the request, or empty
     * @param contentType the content type of {@link #body}, or null when it has none
     */
    public record Answer<H>(
            int status,
            byte[] body,
            Map<String, String> headers,
            boolean closes,
            String route,
            String refusedBy,
            String contentType)
            implements Admission<H> {
        public Answer {
            requireNonNull(body, "body");
            headers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(headers));
            requireNonNull(route, "route");
            requireNonNull(refusedBy, "refusedBy");
            if (body.length == 0) {
                contentType = null;
            } else {
                requireNonNull(contentType, "contentType");
            }
        }

        /** An answer whose body, if any, is a JSON error body. */
        public Answer(
                int status, byte[] body, Map<String, String> headers, boolean closes, String route, String refusedBy) {
            this(status, body, headers, closes, route, refusedBy, ErrorBody.CONTENT_TYPE);
        }

        static <H> Answer<H> error(int status, byte[] body, String route) {
            return new Answer<>(status, body, Map.of(), false, route, "");
        }
    }

    /**
     * The route the request enters (its policies still to ask).
     *
     * @param compiled the compiled route
     * @param match the route table's match
     * @param websocket the request is a valid WebSocket upgrade on a proxy route: the engine tunnels it
     */
    public record Enter<H>(GatewaySnapshot.Compiled<H> compiled, RouteTable.Result.Matched match, boolean websocket)
            implements Admission<H> {
        public Enter {
            requireNonNull(compiled, "compiled");
            requireNonNull(match, "match");
        }

        @Override
        public String route() {
            return match.route().id();
        }

        /**
         * Whether the route reads the request's body, which goes upstream: a proxy route. Only then
         * is the route's body limit counted as the body streams, and only then does an HTTP/2 head
         * that leaves its framing to its first DATA frame ({@link RequestFraming#AT_FIRST_DATA})
         * wait for it at most {@code server.limits.header-timeout} ({@link
         * RequestFraming#FIRST_DATA_TIMEOUT}, {@code 408}). A composition reads no request body: its
         * stream waits for no DATA frame, however long its parts take.
         */
        public boolean readsBody() {
            return match.route().target() instanceof dev.sluice.config.ProxyTarget;
        }
    }

    /**
     * The front door's outcome for {@code head} on {@code snapshot}: the route table's 404, 405 (with
     * {@code Allow}, its methods sorted) and 400 for a bad path; on a matched route, a declared body
     * over its limit ({@link BodyLimit}, by {@link RequestFraming#declaredLength}) is a 413 that
     * closes the connection before any upstream is asked, then a WebSocket upgrade the route refuses
     * ({@link WebSocketUpgrade}) a 400; else the route to enter.
     */
    public static <H> Admission<H> admit(GatewaySnapshot<H> snapshot, Head head) {
        String method = head.method();
        String path = head.path();
        return switch (snapshot.match(
                method, head.header().apply("Host"), path, head.query(), routingHeaders(snapshot, head))) {
            case RouteTable.Result.Matched matched -> {
                GatewaySnapshot.Compiled<H> route = snapshot.route(matched);
                if (route.maxBody() != dev.sluice.config.ServerLimits.UNLIMITED) {
                    long declared = RequestFraming.declaredLength(head.headers().apply("Content-Length"));
                    if (BodyLimit.exceeds(declared, route.maxBody())) {
                        RequestFraming.Rejection tooLarge = BodyLimit.rejection(route.maxBody());
                        yield new Answer<>(
                                tooLarge.status(),
                                tooLarge.errorBody(),
                                Map.of(),
                                true,
                                matched.route().id(),
                                "");
                    }
                }
                WebSocketUpgrade upgrade = WebSocketUpgrade.of(method, head.version(), head.headers());
                String refusal = upgrade.refusal(matched.route().target());
                if (refusal != null) {
                    yield Answer.error(
                            400, ErrorBody.badRequest(refusal), matched.route().id());
                }
                yield new Enter<>(route, matched, upgrade.requested());
            }
            case RouteTable.Result.MethodNotAllowed notAllowed ->
                new Answer<>(
                        405,
                        ErrorBody.methodNotAllowed(method, path),
                        Map.of("Allow", String.join(", ", new TreeSet<>(notAllowed.allowed()))),
                        false,
                        "",
                        "");
            case RouteTable.Result.NotFound notFound -> Answer.error(404, ErrorBody.notFound(method, path), "");
            case RouteTable.Result.BadPath bad -> Answer.error(400, ErrorBody.badRequest(bad.reason()), "");
        };
    }

    /**
     * The header lookup the route table reads: the head's, except that when a route matches on
     * cookies the {@code cookie} header is every {@code Cookie} field joined (an HTTP/2 client may
     * split them), so that both engines see the same cookies.
     */
    private static Function<String, String> routingHeaders(GatewaySnapshot<?> snapshot, Head head) {
        if (!snapshot.readsCookies()) {
            return head.header();
        }
        return name -> name.equalsIgnoreCase("cookie")
                ? RouteTable.joinedCookies(head.headers().apply(name))
                : head.header().apply(name);
    }

    /**
     * The answer of a route the gateway answers itself ({@link AnswerTarget}), once its policies let
     * the request through: a redirect's status and {@code Location} ({@link
     * dev.sluice.routing.RedirectLocation}), or a {@code respond} route's status and body.
     *
     * @param host the client's {@code Host} (or {@code :authority}), or null
     * @param rawQuery the client's query as sent, or null
     * @throws dev.sluice.routing.PathTemplate.ExpansionException when the location cannot be made
     *     from this request (400)
     */
    public static <H> Answer<H> answered(
            AnswerTarget target, RouteTable.Result.Matched match, String host, String rawQuery) {
        String route = match.route().id();
        return switch (target) {
            case AnswerTarget.Redirect redirect ->
                new Answer<>(
                        redirect.status(),
                        new byte[0],
                        Map.of("Location", redirect.location().expand(match, host, rawQuery, redirect.keepQuery())),
                        false,
                        route,
                        "");
            case AnswerTarget.Respond respond ->
                new Answer<>(
                        respond.status(),
                        respond.body().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        Map.of(),
                        false,
                        route,
                        "",
                        respond.contentType());
        };
    }

    /**
     * The answer to a composition whose {@code Accept} allows none of the route's formats ({@link
     * DeliveryNegotiation#choose} chose none): 406 with {@link DeliveryNegotiation#notAcceptableBody}
     * and {@code Vary: Accept}, since the refusal depends on {@code Accept} too.
     *
     * @param route the route's id
     */
    public static <H> Answer<H> notAcceptable(ComposeTarget target, String route) {
        return new Answer<>(
                406, DeliveryNegotiation.notAcceptableBody(target), Map.of("Vary", "Accept"), false, route, "");
    }

    /**
     * The answer to a request the route's policies did not let through: a {@link Decision.Reject}'s
     * (its JSON body, its headers, the refusing policy) or a {@link Decision.Answer}'s (no body); null
     * for a {@link Decision.Proceed}, whose route the engine runs, and a {@link Decision.Pending},
     * which the engine waits for and asks about again.
     */
    public static <H> Answer<H> decided(Decision decision, RouteTable.Result.Matched match) {
        String route = match.route().id();
        return switch (decision) {
            case Decision.Reject reject ->
                new Answer<>(reject.status(), reject.body(), reject.headers(), false, route, reject.policy());
            case Decision.Answer given -> new Answer<>(given.status(), new byte[0], given.headers(), false, route, "");
            case Decision.Proceed proceed -> null;
            case Decision.Pending pending -> null;
        };
    }
}
