package dev.sluice.lab;

import dev.sluice.lab.compose.TreeCompose;
import dev.sluice.lab.scenario.ComposeScenario;
import dev.sluice.lab.scenario.DeployScenario;
import dev.sluice.lab.scenario.GrpcScenario;
import dev.sluice.lab.scenario.PaperScenario;
import dev.sluice.lab.scenario.S001Scenario;
import dev.sluice.lab.scenario.S002Scenario;
import dev.sluice.lab.scenario.S003Scenario;
import dev.sluice.lab.scenario.S004Scenario;
import dev.sluice.lab.scenario.SoakScenario;
import java.util.List;

/**
 * {@code sluice lab <scenario> [flags]}: runs one experiment of docs/SEEDS.md and writes its report.
 * Exit codes: 0 done without errors, 1 done with errors or failed, 2 bad usage.
 */
public final class LabMain {

    static final String USAGE = """
      usage: sluice lab <scenario> [flags]
        paper    the paper: /compose (16/5/7 KB parts), 100 users; CPU, RSS, throughput per second
                 --duration 60s (300s for the paper's length) --warmup 10s --ramp-up 5s --connections 100
                 --subjects virtual,reactive,platform,spring-reactive,spring-virtual --runtimes jvm,aot
                 --target-rate 10000 --replica-cores 2
        s001     seed 001: 5 s blocking upstream, 1,000 users; platform (200 threads) vs virtual vs reactive
                 --duration 60s --connections 1000 --subjects platform,virtual,reactive,spring-platform,spring-virtual
        s002     seed 002: proxy overhead, body sizes x concurrency
                 --duration 10s --sizes 100,1024,10240,102400 --concurrency 1,2,4,...,256 --subjects virtual,reactive,platform
        s003     seed 003: fast route beside a slow composition (5 parallel + 4 rate-limited calls)
                 --duration 60s --connections 200 --slow-connections 100 --subjects virtual,reactive,platform
                 --isolation off,on (on: the slow route gets concurrency { max: --slow-max 8, queue: 0 })
        s004     seed 004: /compose-delay (3 x 30 ms) at 30,60,90,150,180 users
                 --duration 30s --users 30,60,90,150,180
                 --subjects sequential,virtual,reactive,platform,spring-virtual,spring-reactive,kotlin-coroutines
        compose  issue 30: plain, shaped, chained and collection compositions of /doc/N parts beside an in-memory
                 baseline (tree: Jackson trees, as KrakenD); req/s, CPU per request, RSS, time to first byte;
                 shaped/plain CPU, chain latency against its parts', RSS of concurrent shaped compositions over idle
                 --duration 10s --warmup 5s --sizes 16384,1048576,8388608 --concurrency 10 --probes 11
                 --subjects virtual,reactive,platform,tree --memory-size 8388608 --memory-users 10 [--memory-only]
        grpc     issue 32: unary and server-streaming gRPC calls direct and through Sluice (h2c), per engine:
                 calls/s, gateway CPU ms per call, added latency p50/p99
                 --duration 10s --warmup 20s (C2 settles) --subjects virtual,reactive,platform --concurrency 8
                 --message-size 64 --stream-messages 100
        deploy   Table 2: packaging time, file sizes (jar + JDK, jlink image, native), start time (jvm, aot)
                 --runs 5 --engines virtual,reactive
        soak     /compose and /products at 80 % of peak with the upstreams killed and restarted every minute:
                 broken responses, RSS slope, file descriptors, threads
                 --duration 30m --restart-every 60s --load 80 --connections 40 --subjects virtual,reactive,platform
      every load scenario: --out DIR (results; default lab-results/<scenario>-<time>) --pin (subject on one
        CPU, load generator and upstreams on the other) --warmup 10s --jvm-flags "..." --jdk DIR
        --wrk-threads N --project DIR
      """;

    private LabMain() {}

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(run(List.of(args)));
    }

    public static int run(List<String> args) {
        try {
            if (args.isEmpty() || List.of("help", "--help", "-h").contains(args.getFirst())) {
                System.out.print(USAGE);
                return args.isEmpty() ? 2 : 0;
            }
            return switch (args.getFirst()) {
                case "paper" -> PaperScenario.run(args);
                case "s001" -> S001Scenario.run(args);
                case "s002" -> S002Scenario.run(args);
                case "s003" -> S003Scenario.run(args);
                case "s004" -> S004Scenario.run(args);
                case "compose" -> ComposeScenario.run(args);
                case "grpc" -> GrpcScenario.run(args);
                case "deploy" -> DeployScenario.run(args);
                case "soak" -> SoakScenario.run(args);
                case "sizes-upstream" -> SizesUpstream.main(args.subList(1, args.size()));
                case "tree-compose" -> TreeCompose.main(args.subList(1, args.size()));
                default ->
                    throw new UsageException("unknown scenario '" + args.getFirst()
                            + "' (expected: paper, s001, s002, s003, s004, compose, grpc, deploy, soak)");
            };
        } catch (UsageException e) {
            System.err.println("sluice lab: " + e.getMessage());
            System.err.print(USAGE);
            return 2;
        } catch (LabFailure e) {
            System.err.println("sluice lab: " + e.getMessage());
            return 1;
        } catch (Exception e) {
            System.err.println("sluice lab: " + e);
            e.printStackTrace();
            return 1;
        }
    }
}
