package dev.sluice.app;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.TracingConfig;
import dev.sluice.observe.ExchangeEvent;
import dev.sluice.observe.GatewayObserver;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.IdGenerator;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * {@code tracing.otlp}: one span per request, sent to an OpenTelemetry collector over OTLP/HTTP by the
 * OpenTelemetry SDK (its batch processor queues and sends them on a thread of its own, dropping
 * rather than waiting when the collector falls behind). The span is the gateway's own in the
 * request's W3C trace ({@code TraceContext}): the trace and span ids its upstream requests carried in
 * {@code traceparent}, the client's span as its parent. The SDK would make ids of its own, so its id
 * generator hands it the exchange's, set by the thread that starts the span.
 */
final class SpanExport implements GatewayObserver, AutoCloseable {

    private static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
    private static final AttributeKey<String> ROUTE = AttributeKey.stringKey("http.route");
    private static final AttributeKey<String> PATH = AttributeKey.stringKey("url.path");
    private static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
    private static final AttributeKey<String> CLIENT = AttributeKey.stringKey("client.address");
    private static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("sluice.request_id");
    private static final AttributeKey<String> REFUSED_BY = AttributeKey.stringKey("sluice.refused_by");
    private static final AttributeKey<Boolean> ABORTED = AttributeKey.booleanKey("sluice.aborted");

    /** The ids of the span the current thread is starting. */
    private static final ThreadLocal<ExchangeEvent> STARTING = new ThreadLocal<>();

    private static final IdGenerator EXCHANGE_IDS = new IdGenerator() {
        @Override
        public String generateSpanId() {
            ExchangeEvent e = STARTING.get();
            return e != null ? e.spanId() : IdGenerator.random().generateSpanId();
        }

        @Override
        public String generateTraceId() {
            ExchangeEvent e = STARTING.get();
            return e != null ? e.traceId() : IdGenerator.random().generateTraceId();
        }
    };

    private final SdkTracerProvider provider;
    private final Tracer tracer;

    private SpanExport(SdkTracerProvider provider) {
        this.provider = provider;
        this.tracer = provider.get("dev.sluice");
    }

    /** Exports to {@code config}'s endpoint as service {@code sluice}. */
    static SpanExport start(TracingConfig config) {
        requireNonNull(config, "config");
        OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder()
                .setEndpoint(config.otlpEndpoint().toString())
                .build();
        SdkTracerProvider provider = SdkTracerProvider.builder()
                .setIdGenerator(EXCHANGE_IDS)
                .setSampler(Sampler.alwaysOn()) // every sampled request (ExchangeEvent.sampled, decided before this)
                .setResource(Resource.getDefault()
                        .merge(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "sluice"))))
                .addSpanProcessor(BatchSpanProcessor.builder(exporter).build())
                .build();
        return new SpanExport(provider);
    }

    /** The gateway begins traces it records: they go upstream marked sampled. */
    @Override
    public boolean recordsTraces() {
        return true;
    }

    @Override
    public void exchange(ExchangeEvent e) {
        if (e.traceId().length() != 32 || e.spanId().length() != 16) {
            return; // no trace context (an event without one)
        }
        if (!e.sampled()) {
            return; // the client's trace is not sampled: the parent's decision holds (parent-based sampling)
        }
        Instant now = Instant.now();
        long end = TimeUnit.SECONDS.toNanos(now.getEpochSecond()) + now.getNano();
        SpanBuilder span = tracer.spanBuilder(e.route().isEmpty() ? e.method() : e.method() + " " + e.route())
                .setSpanKind(SpanKind.SERVER)
                .setStartTimestamp(end - e.durationNanos(), TimeUnit.NANOSECONDS)
                .setAttribute(METHOD, e.method())
                .setAttribute(PATH, e.path())
                .setAttribute(STATUS, (long) e.status())
                .setAttribute(CLIENT, e.client())
                .setAttribute(REQUEST_ID, e.requestId());
        if (!e.route().isEmpty()) {
            span.setAttribute(ROUTE, e.route());
        }
        if (!e.refusedBy().isEmpty()) {
            span.setAttribute(REFUSED_BY, e.refusedBy());
        }
        if (e.aborted()) {
            span.setAttribute(ABORTED, true);
        }
        if (e.parentSpanId().isEmpty()) {
            span.setNoParent();
        } else {
            span.setParent(Context.root()
                    .with(Span.wrap(SpanContext.createFromRemoteParent(
                            e.traceId(), e.parentSpanId(), TraceFlags.getSampled(), TraceState.getDefault()))));
        }
        Span started;
        STARTING.set(e);
        try {
            started = span.startSpan();
        } finally {
            STARTING.remove();
        }
        if (e.status() >= 500 || e.aborted()) {
            started.setStatus(StatusCode.ERROR);
        }
        started.end(end, TimeUnit.NANOSECONDS);
    }

    /** Sends what is queued (waiting up to 10 s), then stops. */
    @Override
    public void close() {
        provider.shutdown().join(10, TimeUnit.SECONDS);
    }
}
