package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.routing.RedirectLocation;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code redirect:} and {@code respond:} routes as the YAML writes them, and what {@code check} refuses. */
class AnswerConfigTest {

    private static Target bound(String path, String target) throws ConfigException {
        return ConfigLoader.parse(yaml(path, target), "test.yaml")
                .routes()
                .getFirst()
                .target();
    }

    private static String yaml(String path, String target) {
        return """
                upstreams:
                  up: { url: "http://127.0.0.1:1" }
                routes:
                  - id: r
                    match: { path: "%s" }
                    %s
                """.formatted(path, target);
    }

    private static List<Problem> problems(String path, String target) {
        return catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(yaml(path, target), "test.yaml"))
                .problems();
    }

    @Test
    void redirectsAndResponsesBind() throws ConfigException {
        assertThat(bound("/old/{id}", "redirect: { to: \"https://{host}/new/{id}\", status: 308, keep-query: false }"))
                .isEqualTo(new AnswerTarget.Redirect(RedirectLocation.parse("https://{host}/new/{id}"), 308, false));
        assertThat(bound("/**", "redirect: { https: true }"))
                .isEqualTo(new AnswerTarget.Redirect(RedirectLocation.https(), 301, true));
        assertThat(bound("/up", "respond: { status: 200, body: '{\"up\":true}', content-type: application/json }"))
                .isEqualTo(new AnswerTarget.Respond(200, "{\"up\":true}", "application/json"));
        assertThat(bound("/gone", "respond: { status: 410 }"))
                .isEqualTo(new AnswerTarget.Respond(410, "", AnswerTarget.Respond.TEXT));
    }

    @Test
    void checkNamesWhatIsWrongByPath() {
        assertThat(problems("/old/{id}", "redirect: { to: \"/new/{name}\" }"))
                .containsExactly(
                        new Problem(
                                "routes[0].redirect.to",
                                "'{name}' is not a variable of the route path '/old/{id}' (expected: one of {host}, {path}, {id})"));
        assertThat(problems("/a", "redirect: { to: /b, status: 303 }"))
                .containsExactly(new Problem("routes[0].redirect.status", "303 (expected: 301, 302, 307 or 308)"));
        assertThat(problems("/a", "redirect: { to: /b, status: 200 }"))
                .containsExactly(new Problem("routes[0].redirect.status", "200 (expected: 301, 302, 307 or 308)"));
        assertThat(problems("/a", "redirect: { to: \"//evil.test/x\" }"))
                .singleElement()
                .satisfies(p -> assertThat(p.path()).isEqualTo("routes[0].redirect.to"));
        assertThat(problems("/a", "redirect: { to: /b, https: true }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].redirect.https");
        assertThat(problems("/a", "respond: { status: 99 }"))
                .containsExactly(new Problem("routes[0].respond.status", "99 (expected: a status from 200 to 599)"));
        assertThat(problems("/a", "respond: { status: 204, body: x }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].respond.body");
        assertThat(problems("/a", "respond: { status: 200 }\n    proxy: { upstream: up }"))
                .extracting(Problem::message)
                .containsExactly("both proxy and respond (expected: exactly one of proxy, compose, redirect, respond)");
    }
}
