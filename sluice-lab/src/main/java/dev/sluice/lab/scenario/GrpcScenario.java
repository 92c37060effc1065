package dev.sluice.lab.scenario;

import static dev.sluice.lab.report.Figures.fixed;

import dev.sluice.lab.Lab;
import dev.sluice.lab.LabFailure;
import dev.sluice.lab.LabOptions;
import dev.sluice.lab.SizesUpstream;
import dev.sluice.lab.UsageException;
import dev.sluice.lab.grpc.GrpcLoad;
import dev.sluice.lab.grpc.JsonLoad;
import dev.sluice.lab.report.ReportDoc;
import dev.sluice.lab.run.ProcessSampler;
import dev.sluice.lab.run.RunningSubject;
import dev.sluice.lab.run.Subject;
import dev.sluice.lab.run.SubjectLauncher;
import io.grpc.Server;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Issue 32's lab scenario: unary and server-streaming gRPC calls (grpc-java service and load, small
 * messages) made directly, through Sluice proxying them over h2c, and as JSON over HTTP/1.1 through
 * Sluice transcoding them ({@code grpc-transcode}, the same service), in each engine mode: calls per
 * second, the gateway's CPU per call (its process's CPU time over the measured run) and the latency the
 * gateway adds at p50 and p99 (through minus direct).
 */
public final class GrpcScenario {

    static final Set<String> FLAGS =
            LabOptions.common("--subjects", "--concurrency", "--message-size", "--stream-messages");

    /**
     * The ways a call reaches the service: direct, proxied as gRPC, transcoded from JSON, or as a
     * transcoded composition part beside a plain JSON part.
     */
    static final List<String> LEGS = List.of("direct", "proxy", "transcode", "compose");

    private GrpcScenario() {}

    /** One measured load: the leg, the subject (or "-" for direct), the kind of call, what it measured. */
    record Row(String leg, String subject, String kind, GrpcLoad.Result result, double cpuMillisPerCall) {}

    public static int run(List<String> args) throws UsageException, LabFailure {
        LabOptions o = LabOptions.parse(args, FLAGS, Set.of("--pin"));
        double seconds = o.duration("--duration", Duration.ofSeconds(10)).toMillis() / 1000.0;
        double warmup = o.duration("--warmup", Duration.ofSeconds(20)).toMillis() / 1000.0;
        int users = o.integer("--concurrency", 8, 1, 1_000);
        int size = o.integer("--message-size", 64, 1, 1 << 20);
        int messages = o.integer("--stream-messages", 100, 1, 127);
        if (seconds < 1) {
            throw new UsageException("--duration: " + seconds + " s (expected: at least 1s)");
        }
        List<Subject> subjects =
                Subject.parse(o.list("--subjects", List.of("virtual", "reactive", "platform")), List.of("jvm"));
        if (subjects.stream().anyMatch(Subject::baseline)) {
            throw new UsageException("--subjects: the grpc scenario runs Sluice's engines only");
        }
        Lab lab = Lab.open(o);
        ReportDoc doc = new ReportDoc("Sluice lab — grpc: unary and server-streaming calls, direct and proxied");
        List<Row> rows = new ArrayList<>();
        Server service = GrpcLoad.serve();
        org.eclipse.jetty.server.Server sizes = null;
        try {
            sizes = SizesUpstream.start(0); // the compose leg's plain JSON part
            int sizesPort = ((org.eclipse.jetty.server.ServerConnector) sizes.getConnectors()[0]).getLocalPort();
            Path config = lab.gatewayConfig("gateway.yaml", yaml(service.getPort(), sizesPort, size, messages));
            writeDescriptors(config.resolveSibling(DESCRIPTORS));
            SubjectLauncher launcher = new SubjectLauncher(
                    lab.workspace(),
                    lab.cpus(),
                    lab.gatewayFlags(),
                    lab.baselineFlags(),
                    lab.results().logs(),
                    Map.of(),
                    lab::aotCache);
            for (String kind : List.of("unary", "stream")) {
                load("direct", service.getPort(), kind, users, warmup, size, messages); // the service's JIT
                rows.add(new Row(
                        "direct",
                        "-",
                        kind,
                        load("direct", service.getPort(), kind, users, seconds, size, messages),
                        Double.NaN));
            }
            for (Subject s : subjects) {
                try (RunningSubject running = launcher.start(s, config, "/ready", 2)) {
                    int port = running.base().getPort();
                    long pid = running.process().pid();
                    for (String leg : LEGS.subList(1, LEGS.size())) {
                        for (String kind : List.of("unary", "stream")) {
                            System.err.println("sluice lab: grpc: " + s.name() + " " + leg + " " + kind);
                            load(leg, port, kind, users, warmup, size, messages);
                            long before = ProcessSampler.cpuTicks(pid).orElse(-1L);
                            GrpcLoad.Result result = load(leg, port, kind, users, seconds, size, messages);
                            long after = ProcessSampler.cpuTicks(pid).orElse(-1L);
                            double cpuMillis = before < 0 || after < 0
                                    ? Double.NaN
                                    : (after - before) * 1000.0 / ProcessSampler.ticksPerSecond();
                            rows.add(new Row(
                                    leg,
                                    s.name(),
                                    kind,
                                    result,
                                    result.calls() == 0 ? Double.NaN : cpuMillis / result.calls()));
                        }
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LabFailure("interrupted", e);
        } catch (LabFailure e) {
            throw e;
        } catch (Exception e) { // the sizes upstream did not start
            throw new LabFailure("the compose leg's JSON upstream: " + e.getMessage(), e);
        } finally {
            service.shutdownNow();
            stop(sizes);
        }
        doc.paragraph(lab.machineLine());
        doc.paragraph("grpc-java load: " + users + " concurrent callers on one h2c channel for " + seconds
                + " s each (after " + warmup + " s of warm-up), messages of " + size + " bytes; a stream is "
                + messages + " messages. The transcode leg: as many JSON callers over HTTP/1.1 (the JDK's"
                + " client) calling the same methods through grpc-transcode routes, a stream answered as one"
                + " JSON array. The compose leg: as many JSON callers, each a GET of a composition whose"
                + " parts are a plain JSON document of " + JsonLoad.COMPOSE_JSON_PART + " bytes (the lab's"
                + " sizes upstream, HTTP/1.1) and the same method as a grpc-transcode part (its message from"
                + " the part's query). Gateway CPU per call: the gateway process's CPU time over the run"
                + " divided by the calls. Added latency: through the gateway minus direct, same kind of call.");
        doc.table(
                List.of(
                        "leg",
                        "subject",
                        "call",
                        "calls/s",
                        "failed",
                        "gateway CPU ms/call",
                        "p50 ms",
                        "p99 ms",
                        "added p50 ms",
                        "added p99 ms"),
                table(rows));
        lab.finish(doc);
        for (List<String> row : table(rows)) {
            System.out.println(String.join(" | ", row));
        }
        return rows.stream()
                        .anyMatch(r -> r.result().failures() > 0 || r.result().calls() == 0)
                ? 1
                : 0;
    }

    static List<List<String>> table(List<Row> rows) {
        List<List<String>> out = new ArrayList<>();
        for (Row r : rows) {
            Row direct = rows.stream()
                    .filter(d -> d.leg().equals("direct") && d.kind().equals(r.kind()))
                    .findFirst()
                    .orElse(null);
            boolean through = !r.leg().equals("direct") && direct != null;
            out.add(List.of(
                    r.leg(),
                    r.subject(),
                    r.kind(),
                    fixed(r.result().callsPerSecond(), 0),
                    Long.toString(r.result().failures()),
                    fixed(r.cpuMillisPerCall(), 3),
                    fixed(r.result().quantileMillis(0.5), 3),
                    fixed(r.result().quantileMillis(0.99), 3),
                    through
                            ? fixed(
                                    r.result().quantileMillis(0.5)
                                            - direct.result().quantileMillis(0.5),
                                    3)
                            : "-",
                    through
                            ? fixed(
                                    r.result().quantileMillis(0.99)
                                            - direct.result().quantileMillis(0.99),
                                    3)
                            : "-"));
        }
        return out;
    }

    private static GrpcLoad.Result load(
            String leg, int port, String kind, int users, double seconds, int size, int messages)
            throws InterruptedException {
        boolean stream = kind.equals("stream");
        return switch (leg) {
            case "transcode" -> JsonLoad.run(port, stream, users, seconds, size, messages);
            case "compose" -> JsonLoad.compose(port, stream, users, seconds, messages);
            default -> GrpcLoad.run(port, stream, users, seconds, size, messages);
        };
    }

    private static void stop(org.eclipse.jetty.server.Server sizes) {
        if (sizes != null) {
            try {
                sizes.stop();
            } catch (Exception e) {
                System.err.println("sluice lab: grpc: the sizes upstream did not stop: " + e.getMessage());
            }
        }
    }

    /** The service's descriptor set, beside the gateway's configuration (which names it relatively). */
    static final String DESCRIPTORS = "echo.pb";

    private static void writeDescriptors(Path file) throws LabFailure {
        try {
            java.nio.file.Files.write(file, GrpcLoad.descriptorSet());
        } catch (java.io.IOException e) {
            throw new LabFailure("cannot write " + file, e);
        }
    }

    /**
     * The gateway: every call of the lab's service proxied to it over h2c, its two methods transcoded
     * from JSON at /json/say and /json/stream, composed as a part beside a plain JSON part (the sizes
     * upstream's {@code /bytes/N}) at /compose/say and /compose/stream, and /ready for the launcher.
     */
    static String yaml(int servicePort, int sizesPort, int size, int messages) {
        return """
                server: { host: 127.0.0.1, port: 0 }
                upstreams:
                  echo: { url: "http://127.0.0.1:%d", protocol: h2c }
                  sizes: { url: "http://127.0.0.1:%d" }
                routes:
                  - id: ready
                    match: { path: /ready, methods: [GET] }
                    respond: { status: 200, body: ok, content-type: text/plain }
                  - id: echo
                    match: { path: "/%s/**" }
                    proxy: { upstream: echo }
                  - id: json-say
                    match: { path: /json/say, methods: [POST] }
                    proxy:
                      upstream: echo
                      grpc-transcode: { descriptors: %s, services: [%s], method: %s/Say }
                  - id: json-stream
                    match: { path: /json/stream, methods: [POST] }
                    proxy:
                      upstream: echo
                      grpc-transcode: { descriptors: %s, services: [%s], method: %s/Stream }
                  - id: compose-say
                    match: { path: /compose/say, methods: [GET] }
                    compose:
                      parts:
                        doc: { upstream: sizes, path: "/bytes/%d" }
                        say:
                          upstream: echo
                          path: "/say?%s"
                          grpc-transcode: { descriptors: %s, services: [%s], method: %s/Say }
                  - id: compose-stream
                    match: { path: /compose/stream, methods: [GET] }
                    compose:
                      parts:
                        doc: { upstream: sizes, path: "/bytes/%d" }
                        stream:
                          upstream: echo
                          path: "/stream?%s"
                          grpc-transcode: { descriptors: %s, services: [%s], method: %s/Stream }
                logging: { level: warn }
                """.formatted(
                        servicePort,
                        sizesPort,
                        GrpcLoad.SERVICE,
                        DESCRIPTORS,
                        GrpcLoad.SERVICE,
                        GrpcLoad.SERVICE,
                        DESCRIPTORS,
                        GrpcLoad.SERVICE,
                        GrpcLoad.SERVICE,
                        JsonLoad.COMPOSE_JSON_PART,
                        JsonLoad.query(0, size),
                        DESCRIPTORS,
                        GrpcLoad.SERVICE,
                        GrpcLoad.SERVICE,
                        JsonLoad.COMPOSE_JSON_PART,
                        JsonLoad.query(messages, size),
                        DESCRIPTORS,
                        GrpcLoad.SERVICE,
                        GrpcLoad.SERVICE);
    }
}
