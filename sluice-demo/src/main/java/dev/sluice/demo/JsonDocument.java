package dev.sluice.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * One of the bundled JSON documents, answered from pre-built read-only buffers. A document may
 * carry a placeholder (such as {@code {{id}}}) inside its strings; {@link #expanded} fills it in,
 * caching the result for the first {@value #CACHED} values.
 */
final class JsonDocument {

    static final int CACHED = 256;
    /** Values a placeholder accepts: safe inside a JSON string and a URL path. */
    private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9_-]{1,40}");

    private final String name;
    private final String text;
    private final String placeholder;
    private final ByteBuffer whole;
    private final ConcurrentHashMap<String, ByteBuffer> cache = new ConcurrentHashMap<>();

    private JsonDocument(String name, String text, String placeholder) {
        this.name = name;
        this.text = text;
        this.placeholder = placeholder;
        this.whole = JsonReply.prebuilt(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Reads {@code dev/sluice/demo/<name>} from the class path.
     *
     * @param placeholder the text {@link #expanded} replaces, such as {@code {{id}}}
     */
    static JsonDocument load(String name, String placeholder) {
        return new JsonDocument(name, resource(name), placeholder);
    }

    static String resource(String name) {
        try (InputStream in = JsonDocument.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("resource: dev/sluice/demo/" + name + " (expected: on the class path)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("resource: dev/sluice/demo/" + name + " cannot be read", e);
        }
    }

    /** The document as bundled (placeholders, if any, left as they are). */
    ByteBuffer whole() {
        return whole;
    }

    /**
     * The document with every placeholder replaced by {@code value}, or empty when {@code value} is
     * not 1 to 40 letters, digits, '-' or '_'.
     */
    Optional<ByteBuffer> expanded(String value) {
        ByteBuffer cached = cache.get(value);
        if (cached != null) {
            return Optional.of(cached);
        }
        if (!VALUE.matcher(value).matches()) {
            return Optional.empty();
        }
        ByteBuffer built = JsonReply.prebuilt(text.replace(placeholder, value).getBytes(StandardCharsets.UTF_8));
        if (cache.size() < CACHED) {
            cache.putIfAbsent(value, built);
        }
        return Optional.of(built);
    }

    @Override
    public String toString() {
        return name;
    }
}
