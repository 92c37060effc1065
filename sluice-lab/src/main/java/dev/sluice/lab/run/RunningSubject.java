package dev.sluice.lab.run;

import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * A subject that started and answered.
 *
 * @param process the subject's process (its pid is sampled)
 * @param command the command line that started it
 * @param base its base URL
 * @param startedMillis process start to the "started" log line, measured by the lab
 * @param reportedMillis the start time the subject printed itself, when it did
 * @param firstResponseMillis process start to the first successful response
 */
public record RunningSubject(
        Subject subject,
        LaunchedProcess process,
        List<String> command,
        URI base,
        double startedMillis,
        Optional<Double> reportedMillis,
        double firstResponseMillis)
        implements AutoCloseable {

    public URI url(String path) {
        return base.resolve(path);
    }

    @Override
    public void close() {
        process.close();
    }
}
