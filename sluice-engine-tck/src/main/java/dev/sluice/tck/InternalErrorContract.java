package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import dev.sluice.config.FilterConfig;
import dev.sluice.http.RequestId;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A request that fails inside the gateway (neither the upstream's, the client's nor the route's
 * doing) is answered 500 {@code internal_error} with the request's id, in the body and in {@code
 * X-Request-Id}, never with the exception's text; the gateway logs the exception, stack trace
 * included, under that id at ERROR.
 *
 * <p>The failure used is a real one, not a hook: a composition part that names an upstream the
 * configuration does not declare. The YAML loader refuses such a file, but a configuration built
 * from the records reaches the engine, which finds no upstream when it expands the part's path for
 * a request (a {@code NullPointerException} before anything is committed).
 */
public abstract class InternalErrorContract extends ContractFixture {

    private TestGateway startBroken() {
        return gateway()
                .route("broken", on("/broken/{id}"), compose().part("item", "undeclared", "/items/{id}"))
                .start();
    }

    @Test
    void aFailureInsideTheGatewayIsA500WithTheRequestIdAndNoExceptionText() {
        try (LogCapture log = LogCapture.start();
                TestGateway gw = startBroken()) {
            HttpResponse<byte[]> response = get(gw, "/broken/7");

            assertThat(response.statusCode())
                    .as("status, body %s", text(response))
                    .isEqualTo(500);
            assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
            Map<String, Object> body = Json.object(response.body());
            assertThat(body.keySet()).containsExactly("status", "error", "message", "request_id");
            assertThat(body.get("status")).hasToString("500");
            assertThat(body.get("error")).isEqualTo("internal_error");
            String id = (String) body.get("request_id");
            assertThat(RequestId.isSane(id)).as("request id '%s'", id).isTrue();
            assertThat(response.headers().firstValue(RequestId.HEADER)).hasValue(id);

            ILoggingEvent logged = loggedOnce(log, id);
            assertThat(logged.getLevel()).isEqualTo(Level.ERROR);
            assertThat(logged.getFormattedMessage()).contains("GET /broken/7");
            IThrowableProxy exception = logged.getThrowableProxy();
            assertThat(exception).as("the exception is logged").isNotNull();
            assertThat(exception.getClassName()).isEqualTo(NullPointerException.class.getName());
            assertThat(exception.getStackTraceElementProxyArray())
                    .as("with its stack trace")
                    .isNotEmpty();
            assertThat(text(response))
                    .as("the body tells nothing of the exception")
                    .doesNotContain("Exception")
                    .doesNotContain(exception.getMessage());
        }
    }

    @Test
    void theClientsSaneRequestIdIsKeptAndAnInsaneOneReplaced() {
        try (LogCapture log = LogCapture.start();
                TestGateway gw = startBroken()) {
            HttpResponse<byte[]> kept =
                    send(gw, HttpRequest.newBuilder(gw.uri("/broken/1")).header(RequestId.HEADER, "client-id-42"));
            assertThat(kept.statusCode()).isEqualTo(500);
            assertThat(Json.object(kept.body()).get("request_id")).isEqualTo("client-id-42");
            assertThat(kept.headers().firstValue(RequestId.HEADER)).hasValue("client-id-42");
            assertThat(loggedOnce(log, "client-id-42").getLevel()).isEqualTo(Level.ERROR);

            String insane = "two words";
            HttpResponse<byte[]> replaced =
                    send(gw, HttpRequest.newBuilder(gw.uri("/broken/2")).header(RequestId.HEADER, insane));
            assertThat(replaced.statusCode()).isEqualTo(500);
            String id = (String) Json.object(replaced.body()).get("request_id");
            assertThat(id).isNotEqualTo(insane);
            assertThat(RequestId.isSane(id)).isTrue();
            assertThat(replaced.headers().firstValue(RequestId.HEADER)).hasValue(id);
            assertThat(loggedOnce(log, id).getFormattedMessage()).contains("GET /broken/2");
        }
    }

    /**
     * A 4xx the gateway decides (the client's doing, or the route's) is an answer, not a failure
     * inside the gateway: nothing of it is logged at ERROR, and it carries no {@code X-Request-Id} of
     * an internal failure.
     */
    @Test
    void aClientErrorTheGatewayDecidesIsNeverLoggedAtError() throws Exception {
        try (LogCapture log = LogCapture.start();
                TestGateway gw = gateway()
                        .requestIdOnAnswers(false) // what marks an internal failure's answer, alone
                        .route("lookup", on("/lookup"), proxy(APP).path("/inspect/products/{id}"))
                        .route(
                                "page-lookup",
                                on("/page-lookup"),
                                compose().part("product", APP, "/inspect/products/{id}"))
                        .route("small", on("/small/**"), proxy(APP).stripPrefix("/small"), new FilterConfig.MaxBody(10))
                        .route(
                                "only-get",
                                on("/only-get").methods("GET"),
                                proxy(APP).path("/inspect/x"))
                        .start()) {
            record Case(String request, int status, String code) {}
            List<Case> cases = List.of(
                    new Case("GET /lookup?id=.. HTTP/1.1", 400, "bad_request"), // unsafe path variable
                    new Case("GET /lookup?id=%2e HTTP/1.1", 400, "bad_request"),
                    new Case("GET /lookup HTTP/1.1", 400, "bad_request"), // missing variable
                    new Case("GET /page-lookup?id=.. HTTP/1.1", 400, "bad_request"), // a part's unsafe variable
                    new Case("GET /page-lookup HTTP/1.1", 400, "bad_request"), // a part's missing variable
                    new Case("GET /nowhere HTTP/1.1", 404, "not_found"),
                    new Case("DELETE /only-get HTTP/1.1", 405, "method_not_allowed"));
            for (Case c : cases) {
                WireResponse response = gw.wire()
                        .sendRaw((c.request() + "\r\nHost: h\r\nConnection: close\r\n\r\n").getBytes(), 1)
                        .responses()
                        .getFirst();
                assertError(response, c.status(), c.code());
                assertThat(response.header(RequestId.HEADER))
                        .as("%s: the id of an internal failure", c.request())
                        .isEmpty();
            }
            WireResponse tooLarge = gw.wire()
                    .sendRaw(
                            ("POST /small/x HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n" + "x".repeat(11))
                                    .getBytes(),
                            1)
                    .responses()
                    .getFirst();
            assertError(tooLarge, 413, "content_too_large");
            assertThat(log.events().stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR)))
                    .as("ERROR events among %s", log.events())
                    .isEmpty();
        }
    }

    /**
     * The other failures a request meets on its way, each mapped by the core's one {@code
     * FailureAnswer}: an upstream that refuses the connection is its {@code 502}, a chunked body
     * streamed past the route's limit a {@code 413}; neither is a failure inside the gateway, so
     * neither is logged at ERROR nor carries an internal failure's {@code X-Request-Id}.
     */
    @Test
    void anUpstreamsFailureAndABodyPastItsLimitAreAnswersNeverErrors() throws Exception {
        try (LogCapture log = LogCapture.start();
                TestGateway gw = gateway()
                        .requestIdOnAnswers(false) // what marks an internal failure's answer, alone
                        .upstream("down", refusedUrl())
                        .route("down", on("/down/**"), proxy("down").stripPrefix("/down"))
                        .route("small", on("/small/**"), proxy(APP).stripPrefix("/small"), new FilterConfig.MaxBody(10))
                        .start()) {
            WireResponse refused = gw.wire()
                    .sendRaw("GET /down/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n".getBytes(), 1)
                    .responses()
                    .getFirst();
            assertError(refused, 502, "refused");
            assertThat(refused.header(RequestId.HEADER)).isEmpty();

            WireResponse tooLarge = gw.wire()
                    .sendRaw(
                            ("POST /small/x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + "b\r\n"
                                            + "x".repeat(11) + "\r\n0\r\n\r\n")
                                    .getBytes(),
                            1)
                    .responses()
                    .getFirst();
            assertError(tooLarge, 413, "content_too_large");
            assertThat(tooLarge.header(RequestId.HEADER)).isEmpty();

            assertThat(log.events().stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR)))
                    .as("ERROR events among %s", log.events())
                    .isEmpty();
        }
    }

    /** The one event that names request {@code id}: the gateway logs it before it answers. */
    private static ILoggingEvent loggedOnce(LogCapture log, String id) {
        List<ILoggingEvent> events = log.eventsContaining("request " + id + ":");
        assertThat(events)
                .as("log events naming request %s among %s", id, log.events())
                .hasSize(1);
        return events.getFirst();
    }
}
