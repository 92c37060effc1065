package dev.sluice.lab.scenario;

import dev.sluice.lab.LabFailure;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Fetches upstream bodies once, to know the least size a correct composed response has. */
final class Bodies {

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    private Bodies() {}

    /** The sum of the bodies' sizes; fails unless each answers 200. */
    static long totalSize(URI... urls) throws LabFailure {
        long total = 0;
        for (URI u : urls) {
            try {
                HttpResponse<byte[]> r = HTTP.send(
                        HttpRequest.newBuilder(u)
                                .timeout(Duration.ofSeconds(20))
                                .build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                if (r.statusCode() != 200 || r.body().length == 0) {
                    throw new LabFailure("upstream " + u + " answered " + r.statusCode() + " with " + r.body().length
                            + " bytes (expected: 200 with a body)");
                }
                total += r.body().length;
            } catch (IOException e) {
                throw new LabFailure("upstream " + u + " did not answer: " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LabFailure("interrupted", e);
            }
        }
        return total;
    }
}
