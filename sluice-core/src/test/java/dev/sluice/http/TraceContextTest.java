package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TraceContextTest {

    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT = "00-" + TRACE + "-00f067aa0ba902b7-01";

    @Test
    void aValidParentKeepsItsTraceAndFlagsWithANewSpan() {
        TraceContext context = TraceContext.of(PARENT, "congo=t61rcWkgMzE");
        assertThat(context.traceId()).isEqualTo(TRACE);
        assertThat(context.traceparent()).startsWith("00-" + TRACE + "-").endsWith("-01");
        assertThat(context.spanId()).isNotEqualTo("00f067aa0ba902b7").matches("[0-9a-f]{16}");
        assertThat(TraceContext.isValid(context.traceparent())).isTrue();
        assertThat(context.tracestate()).isEqualTo("congo=t61rcWkgMzE");
        assertThat(TraceContext.of(PARENT, null).spanId())
                .as("another exchange, another span")
                .isNotEqualTo(context.spanId());
    }

    @Test
    void anInvalidOrMissingParentStartsANewTraceWithoutTheClientsState() {
        String[] invalid = {
            null,
            "",
            "ff-" + TRACE + "-00f067aa0ba902b7-01",
            "01-" + TRACE + "-00f067aa0ba902b7-01",
            "00-" + TRACE.toUpperCase(java.util.Locale.ROOT) + "-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-" + TRACE + "-0000000000000000-01",
            "00-" + TRACE + "-00f067aa0ba902b7-1",
            "00-" + TRACE + "-00f067aa0ba902b7-01-",
            "00_" + TRACE + "-00f067aa0ba902b7-01",
            "00-" + TRACE + "-00f067aa0ba902g7-01"
        };
        for (String parent : invalid) {
            assertThat(TraceContext.isValid(parent)).as("%s", parent).isFalse();
            TraceContext context = TraceContext.of(parent, "congo=t61rcWkgMzE");
            assertThat(TraceContext.isValid(context.traceparent())).isTrue();
            assertThat(context.traceparent()).startsWith("00-").endsWith("-00");
            assertThat(context.traceId()).isNotEqualTo(TRACE);
            assertThat(context.tracestate()).isNull();
        }
        assertThat(TraceContext.isValid(PARENT)).isTrue();
        assertThat(TraceContext.isValid("00-" + TRACE + "-00f067aa0ba902b7-00")).isTrue();
    }

    @Test
    void aTraceTheGatewayBeginsIsSampledOnlyWhenItRecordsItAndAClientsFlagIsKept() {
        TraceContext begun = TraceContext.of(null, null, true);
        assertThat(begun.traceparent()).endsWith("-01");
        assertThat(begun.sampled()).isTrue();
        assertThat(TraceContext.of(null, null, false).sampled()).isFalse();
        String unsampled = "00-" + TRACE + "-00f067aa0ba902b7-00";
        assertThat(TraceContext.of(unsampled, null, true).sampled())
                .as("the client's decision holds")
                .isFalse();
        assertThat(TraceContext.of(PARENT, null, false).sampled()).isEqualTo(PARENT.endsWith("-01"));
    }
}
