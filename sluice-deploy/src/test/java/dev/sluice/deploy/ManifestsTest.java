package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigLoader;
import dev.sluice.config.GatewayConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * deploy/k8s: every manifest valid against the Kubernetes API schemas (offline, with
 * kubernetes-validate, which ships them), and consistent with the gateway and the image: the
 * ConfigMap's configuration is one the gateway accepts, the probes ask the admin listener it
 * configures, the termination grace outlasts its drain and shutdown grace, the user is the image's.
 */
class ManifestsTest {

    private static final Path PROJECT =
            Path.of(System.getProperty("sluice.projectDir", "..")).toAbsolutePath();
    private static final Path K8S = PROJECT.resolve("deploy/k8s");

    private static List<Path> manifests() throws IOException {
        try (Stream<Path> files = Files.list(K8S)) {
            return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.30.0", "1.37.0"})
    void everyManifestIsValidAgainstTheKubernetesSchemas(String version) throws Exception {
        List<String> command = new ArrayList<>(
                List.of("python3", "-m", "kubernetes_validate", "--strict", "--kubernetes-version", version));
        List<Path> files = manifests();
        assertThat(files).hasSizeGreaterThanOrEqualTo(6);
        files.forEach(f -> command.add(f.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = p.waitFor();
        assertThat(out)
                .as("kubernetes-validate is installed (pip install kubernetes-validate; .ci/run does)")
                .doesNotContain("No module named");
        assertThat(code).as(out).isZero();
        assertThat(out).doesNotContain("ERROR");
        for (String kind :
                List.of("configmap", "deployment", "service", "horizontalpodautoscaler", "poddisruptionbudget")) {
            assertThat(out).contains("passed for resource " + kind + "/");
        }
    }

    private static List<Map<String, Object>> documents(String file) throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object d :
                new Load(LoadSettings.builder().build()).loadAllFromString(Files.readString(K8S.resolve(file)))) {
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) d;
            out.add(m);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static <T> T at(Object node, String... path) {
        Object n = node;
        for (String key : path) {
            n = n instanceof List<?> l ? l.get(Integer.parseInt(key)) : ((Map<String, Object>) n).get(key);
        }
        return (T) n;
    }

    private static GatewayConfig configMapConfig() throws Exception {
        return ConfigLoader.parse(at(documents("configmap.yaml").get(0), "data", "sluice.yaml"), "configmap.yaml");
    }

    @Test
    void theConfigMapHoldsAConfigurationTheGatewayAccepts() throws Exception {
        GatewayConfig config = configMapConfig();
        assertThat(config.routes()).isNotEmpty();
        assertThat(config.admin()).isPresent();
        assertThat(config.admin().get().host()).as("probes reach the pod IP").isEqualTo("0.0.0.0");
        assertThat(config.server().host()).isEqualTo("0.0.0.0");
    }

    @Test
    void theDeploymentProbesTheAdminListenerAndOutwaitsTheDrain() throws Exception {
        GatewayConfig config = configMapConfig();
        Map<String, Object> deployment = documents("deployment.yaml").get(0);
        Map<String, Object> pod = at(deployment, "spec", "template", "spec");
        Map<String, Object> container = at(pod, "containers", "0");

        List<Map<String, Object>> ports = at(container, "ports");
        int admin = ports.stream()
                .filter(p -> "admin".equals(p.get("name")))
                .map(p -> (Integer) p.get("containerPort"))
                .findFirst()
                .orElseThrow();
        int http = ports.stream()
                .filter(p -> "http".equals(p.get("name")))
                .map(p -> (Integer) p.get("containerPort"))
                .findFirst()
                .orElseThrow();
        assertThat(admin).isEqualTo(config.admin().get().port());
        assertThat(http).isEqualTo(config.server().port());
        assertThat((String) at(container, "readinessProbe", "httpGet", "path")).isEqualTo("/health/ready");
        assertThat((String) at(container, "readinessProbe", "httpGet", "port")).isEqualTo("admin");
        assertThat((String) at(container, "livenessProbe", "httpGet", "path")).isEqualTo("/health/live");

        // the readiness probe sees the 503 within the drain delay, and Kubernetes waits for the whole stop
        int period = at(container, "readinessProbe", "periodSeconds");
        int failures = at(container, "readinessProbe", "failureThreshold");
        long drain = config.admin().get().drainDelay().toSeconds();
        assertThat((long) period * failures)
                .as("readiness noticed within the drain delay")
                .isLessThan(drain);
        int grace = at(pod, "terminationGracePeriodSeconds");
        assertThat((long) grace)
                .as("terminationGracePeriodSeconds >= drain-delay + shutdown-grace + 10 s")
                .isGreaterThanOrEqualTo(drain + config.server().shutdownGrace().toSeconds() + 10);

        // the configuration is where the arguments say, from the ConfigMap
        List<String> args = at(container, "args");
        assertThat(args).containsExactlyElementsOf(ImageBuilder.DEFAULT_ARGS);
        List<Map<String, Object>> mounts = at(container, "volumeMounts");
        assertThat(mounts)
                .anySatisfy(m ->
                        assertThat(m).containsEntry("mountPath", "/etc/sluice").containsEntry("name", "config"));
        assertThat(mounts).anySatisfy(m -> assertThat(m).containsEntry("mountPath", "/tmp"));
        List<Map<String, Object>> volumes = at(pod, "volumes");
        assertThat(volumes).anySatisfy(v -> {
            assertThat(v).containsEntry("name", "config");
            assertThat((String) at(v, "configMap", "name"))
                    .isEqualTo(at(documents("configmap.yaml").get(0), "metadata", "name"));
        });

        // the image's user, a read-only root
        assertThat((Integer) at(pod, "securityContext", "runAsUser")).isEqualTo(65532);
        assertThat((Boolean) at(container, "securityContext", "readOnlyRootFilesystem"))
                .isTrue();
    }

    @Test
    void theServiceHpaAndBudgetSelectTheDeploymentsPods() throws Exception {
        Map<String, Object> labels = at(documents("deployment.yaml").get(0), "spec", "template", "metadata", "labels");
        Map<String, Object> service = documents("service.yaml").get(0);
        assertThat(labels).containsAllEntriesOf(at(service, "spec", "selector"));
        assertThat((String) at(service, "spec", "ports", "0", "targetPort")).isEqualTo("http");
        Map<String, Object> pdb = documents("pdb.yaml").get(0);
        assertThat(labels).containsAllEntriesOf(at(pdb, "spec", "selector", "matchLabels"));
        Map<String, Object> hpa = documents("hpa.yaml").get(0);
        assertThat((String) at(hpa, "spec", "scaleTargetRef", "name"))
                .isEqualTo(at(documents("deployment.yaml").get(0), "metadata", "name"));
        assertThat((Integer) at(hpa, "spec", "minReplicas")).isGreaterThan(at(pdb, "spec", "minAvailable"));
    }

    /** The image {@code ./sluice image} names by default is the one deployment.yaml runs. */
    @Test
    void theDeploymentRunsTheImageTheLauncherNamesByDefault() throws IOException {
        String pom = Files.readString(PROJECT.resolve("pom.xml"));
        java.util.regex.Matcher version =
                java.util.regex.Pattern.compile("<version>([^<]+)</version>").matcher(pom);
        assertThat(version.find()).isTrue();
        String tag = version.group(1).replaceFirst("-SNAPSHOT$", "");
        assertThat(Files.readString(PROJECT.resolve("sluice")))
                .contains("TAG=\"${VERSION%-SNAPSHOT}\"", "--name \"sluice:$TAG\"");
        assertThat((String)
                        at(documents("deployment.yaml").get(0), "spec", "template", "spec", "containers", "0", "image"))
                .isEqualTo("sluice:" + tag);
    }
}
