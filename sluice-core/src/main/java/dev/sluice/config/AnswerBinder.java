package dev.sluice.config;

import dev.sluice.routing.PathPattern;
import dev.sluice.routing.PathTemplate;
import dev.sluice.routing.RedirectLocation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Binds a route's {@code redirect:} and {@code respond:} ({@link AnswerTarget}). */
final class AnswerBinder {

    private static final String LOCATION_EXPECTED =
            "an http(s) URL such as https://{host}/new/{path}, or a path such as /new/{id}";

    private AnswerBinder() {}

    /** {@code redirect: {to, status, keep-query}} or {@code redirect: {https: true, status}}. */
    static Optional<Target> redirect(Mapping m, Optional<PathPattern> routePath, List<Problem> problems) {
        m.allowOnly("to", "https", "status", "keep-query");
        int before = problems.size();
        boolean https = m.bool("https", false);
        Optional<RedirectLocation> location = Optional.empty();
        if (m.has("to") && https) {
            m.problem("https", "true beside 'to' (expected: one of to, https: true)");
        } else if (https) {
            location = Optional.of(RedirectLocation.https());
        } else if (m.has("to") || !m.has("https")) {
            location = m.requiredString("to", LOCATION_EXPECTED).flatMap(to -> location(m, to, routePath));
        } else {
            m.problem("https", "false without 'to' (expected: https: true, or a 'to' location)");
        }
        int status = m.integer("status", 301, 301, 308, "301, 302, 307 or 308");
        if (status == 303 || status == 304 || status == 305 || status == 306) {
            m.problem("status", status + " (expected: 301, 302, 307 or 308)");
        }
        boolean keepQuery = m.bool("keep-query", true);
        if (location.isEmpty() || problems.size() != before) {
            return Optional.empty();
        }
        return Optional.of(new AnswerTarget.Redirect(location.get(), status, keepQuery));
    }

    private static Optional<RedirectLocation> location(Mapping m, String to, Optional<PathPattern> routePath) {
        RedirectLocation location;
        try {
            location = RedirectLocation.parse(to);
        } catch (IllegalArgumentException e) {
            m.problem("to", e.getMessage());
            return Optional.empty();
        }
        List<String> known = new ArrayList<>(List.of(RedirectLocation.HOST, RedirectLocation.PATH));
        routePath.ifPresent(p -> known.addAll(p.variableNames()));
        boolean wildcard = routePath.map(PathPattern::isWildcard).orElse(false);
        if (wildcard) {
            known.add(PathTemplate.REMAINDER);
        }
        for (String name : location.variableNames()) {
            if (!known.contains(name)) {
                m.problem(
                        "to",
                        "'{" + name + "}' is not a variable of the route path"
                                + routePath.map(p -> " '" + p + "'").orElse("") + " (expected: one of "
                                + String.join(
                                        ", ",
                                        known.stream().map(n -> "{" + n + "}").toList()) + ")");
                return Optional.empty();
            }
        }
        return Optional.of(location);
    }

    /** {@code respond: {status, body, content-type}}. */
    static Optional<Target> respond(Mapping m, List<Problem> problems) {
        m.allowOnly("status", "body", "content-type");
        int before = problems.size();
        int status = m.integer("status", 200, 200, 599, "a status from 200 to 599");
        String body = m.string("body", "the body's text").orElse("");
        Optional<String> contentType = m.string("content-type", "a media type such as application/json");
        if (contentType.isPresent() && !Headers.isValue(contentType.get())
                || contentType.map(String::isBlank).orElse(false)) {
            m.problem("content-type", "'" + contentType.get() + "' (expected: a media type such as application/json)");
        }
        if (!body.isEmpty() && (status == 204 || status == 304)) {
            m.problem("body", "a body with status " + status + " (expected: no body: a " + status + " has none)");
        }
        if (body.isEmpty() && contentType.isPresent()) {
            m.problem("content-type", "without a body (expected: a body, or no content-type)");
        }
        if (problems.size() != before) {
            return Optional.empty();
        }
        return Optional.of(new AnswerTarget.Respond(status, body, contentType.orElse(AnswerTarget.Respond.TEXT)));
    }
}
