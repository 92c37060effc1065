package dev.sluice.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestPathTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiterString = " -> ",
            value = {
                "/ -> /",
                "/api/items -> /api/items",
                "/api/items/ -> /api/items/",
                "/api/../admin -> /admin",
                "/api/./x -> /api/x",
                "/api/a/../../admin -> /admin",
                "/api/%2e%2e/admin -> /admin",
                "/api/%2E%2E/admin -> /admin",
                "/api/.%2e/admin -> /admin",
                "/api/.. -> /",
                "/api/. -> /api/",
                "/a/b/.. -> /a/",
                "/a/./b/./ -> /a/b/",
                "/shop//overview -> /shop/overview",
                "//shop/overview -> /shop/overview",
                "/a/// -> /a/",
                "/.hidden/x.. -> /.hidden/x..",
                "/p/%7euser/%41%2d -> /p/~user/A-",
                "/p/a%20b -> /p/a%20b",
                "/p/a%3fb%3A -> /p/a%3Fb%3A",
                "/p/caf%c3%a9 -> /p/caf%C3%A9",
                "/p/a;b=c -> /p/a;b=c",
                "/p/100%25 -> /p/100%25",
            })
    void normalisesPerRfc3986(String raw, String normalised) {
        assertThat(RequestPath.normalise(raw)).isEqualTo(new RequestPath.Normalised(normalised));
    }

    @ParameterizedTest(name = "{0} is refused: {1}")
    @CsvSource(
            delimiterString = " => ",
            value = {
                "/../x => climbs above '/'",
                "/a/../../x => climbs above '/'",
                "/%2e%2e/x => climbs above '/'",
                "/%zz => not followed by two hex digits",
                "/a% => not followed by two hex digits",
                "/a%2 => not followed by two hex digits",
                "/api/..%2fadmin => encoded slash",
                "/api/%2E%2E%2Fadmin => encoded slash",
                "/a%2Fb => encoded slash",
                "/a%5cb => encoded slash",
                "/a\\b => not allowed in a URI path",
                "/a%00b => encoded control character",
                "/a%7Fb => encoded control character",
                "/api/..;/admin => dot-segment with parameters",
                "/api/.;x/admin => dot-segment with parameters",
                "/api/%2e%2e;x/admin => dot-segment with parameters",
                "/api/..#x => has a '#'",
                "/api/x#/../../admin => has a '#'",
                "/a#b => has a '#'",
                "x/y => must start with '/'",
                "* => must start with '/'",
            })
    void refusesWhatCannotBeNormalisedSafely(String raw, String reason) {
        assertThat(RequestPath.normalise(raw))
                .isInstanceOfSatisfying(
                        RequestPath.Rejected.class, r -> assertThat(r.reason()).contains(reason));
    }

    @ParameterizedTest(name = "control byte {0}")
    @CsvSource({"0", "9", "10", "13", "31", "32", "127", "233"})
    void refusesRawControlSpaceAndNonAsciiCharacters(int c) {
        assertThat(RequestPath.normalise("/a" + (char) c + "b")).isInstanceOf(RequestPath.Rejected.class);
    }

    @org.junit.jupiter.api.Test
    void aPlainPathIsReturnedAsItIs() {
        String raw = "/api/v1/items/42";
        assertThat(((RequestPath.Normalised) RequestPath.normalise(raw)).path()).isSameAs(raw);
    }
}
