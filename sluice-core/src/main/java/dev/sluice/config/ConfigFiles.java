package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A configuration as the files it is made of, read at one moment: the main file and the fragments its
 * {@code include:} names ({@link Includes}). A reload reads a new one and applies it whole, so a
 * change to any of the files, or a fragment added or removed, is one new snapshot.
 *
 * @param source the main file's name (or a label) for messages
 * @param base the directory relative paths in every file are resolved against: the main file's
 * @param text the main file's text, or empty when it could not be read ({@link #problems})
 * @param fragments the included files in the order they are merged
 * @param directories the directories the include patterns list (a watcher watches these too)
 * @param problems what kept a file from being read (an unreadable fragment, a bad pattern)
 */
public record ConfigFiles(
        String source,
        Path base,
        Optional<String> text,
        List<Fragment> fragments,
        List<Path> directories,
        List<Problem> problems) {

    /** One included file: its name as messages show it (relative to {@code base}), and its text. */
    public record Fragment(String name, Path file, String text) {
        public Fragment {
            requireNonNull(name, "name");
            requireNonNull(file, "file");
            requireNonNull(text, "text");
        }
    }

    public ConfigFiles {
        requireNonNull(source, "source");
        requireNonNull(base, "base");
        requireNonNull(text, "text");
        fragments = List.copyOf(fragments);
        directories = List.copyOf(directories);
        problems = List.copyOf(problems);
    }

    /** Reads {@code file} and every file its {@code include:} names, now. Never throws: see {@link #problems}. */
    public static ConfigFiles read(Path file) {
        requireNonNull(file, "file");
        try {
            return of(Files.readString(file, StandardCharsets.UTF_8), file);
        } catch (IOException e) {
            return new ConfigFiles(
                    file.toString(),
                    baseOf(file),
                    Optional.empty(),
                    List.of(),
                    List.of(),
                    List.of(unreadable(file, e)));
        }
    }

    /** {@code yaml}, already read from {@code file}, with the fragments its {@code include:} names read now. */
    public static ConfigFiles of(String yaml, Path file) {
        requireNonNull(yaml, "yaml");
        requireNonNull(file, "file");
        return Includes.read(yaml, file.toString(), baseOf(file));
    }

    /** {@code yaml} from no file: relative paths, include patterns among them, from the working directory. */
    public static ConfigFiles of(String yaml, String sourceName) {
        requireNonNull(yaml, "yaml");
        requireNonNull(sourceName, "sourceName");
        return Includes.read(yaml, sourceName, Path.of("").toAbsolutePath());
    }

    /**
     * The merged document as the files wrote it (before {@code ${NAME}} and {@code secret-file} are
     * put in place): what the admin's {@code GET /config} shows. Empty when a file is not a mapping.
     */
    public Map<String, Object> tree() {
        return Includes.merge(this, new ArrayList<>()).tree();
    }

    /**
     * {@code problem}, found in the merged configuration (a warning of {@link ConfigWarnings}), at its
     * path in the file that wrote it: {@code conf.d/10-orders.yaml: upstreams.orders}.
     */
    public Problem locate(Problem problem) {
        return Includes.merge(this, new ArrayList<>()).locate(problem);
    }

    /** A digest of every file's name and text: equal digests, the same configuration. */
    public byte[] digest() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(text.orElse("\0unreadable").getBytes(StandardCharsets.UTF_8));
            for (Fragment f : fragments) {
                sha.update((byte) 0);
                sha.update(f.name().getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
                sha.update(f.text().getBytes(StandardCharsets.UTF_8));
            }
            for (Problem p : problems) { // a fragment that cannot be read now, and can later, is a change
                sha.update(p.toString().getBytes(StandardCharsets.UTF_8));
            }
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    static Path baseOf(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        return parent != null ? parent : Path.of("").toAbsolutePath();
    }

    static Problem unreadable(Path file, IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return new Problem("(file)", "'" + file + "' does not exist (expected: a readable YAML file)");
        }
        return new Problem("(file)", "'" + file + "' cannot be read: " + e + " (expected: a readable UTF-8 YAML file)");
    }
}
