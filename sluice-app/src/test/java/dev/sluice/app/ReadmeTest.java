package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README is what a new user runs first: it stays short, its links lead somewhere, and its
 * commands are ones the {@code sluice} command accepts. Nothing here starts a gateway: commands are
 * checked with the CLI's own option parser ({@link Arguments}, {@link Cli#OPTIONS}).
 */
class ReadmeTest {

    private static final Path ROOT = repositoryRoot();
    private static final int MAX_README_LINES = 250;
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern PLACEHOLDER = Pattern.compile("<[A-Za-z][^<>]*>");
    private static final Pattern LAUNCHER_COMMAND = Pattern.compile("\"\\$\\{1:-}\" = \"([a-z]+)\"");

    @Test
    void readmeIsAtMost250Lines() throws IOException {
        assertThat(Files.readAllLines(ROOT.resolve("README.md"))).hasSizeLessThanOrEqualTo(MAX_README_LINES);
    }

    @Test
    void everyRelativeLinkLeadsToAFileAndHeadingInTheRepository() throws IOException {
        List<String> dead = new ArrayList<>();
        for (Path doc : documents()) {
            for (String target : links(doc)) {
                deadLink(doc, target).ifPresent(dead::add);
            }
        }
        assertThat(dead).as("dead links").isEmpty();
    }

    @Test
    void everySluiceCommandInTheReadmeIsOneTheCommandLineAccepts() throws IOException {
        Set<String> launcherCommands = launcherCommands();
        assertThat(launcherCommands)
                .as("commands the ./sluice script handles itself")
                .contains("test", "lab");
        Set<String> createdFiles = new HashSet<>();
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (String line : codeBlockLines(ROOT.resolve("README.md"), "bash")) {
            ShellLine shell = ShellLine.parse(line);
            for (List<String> words : shell.commands()) {
                if (words.getFirst().equals("./sluice")) {
                    checked++;
                    problemWith(words, launcherCommands, createdFiles).ifPresent(p -> problems.add(line + "\n  " + p));
                }
            }
            createdFiles.addAll(shell.redirectTargets());
        }
        assertThat(checked)
                .as("./sluice commands found in the README's bash blocks")
                .isGreaterThan(5);
        assertThat(problems).isEmpty();
    }

    @Test
    void noCommandInTheReadmeHasAPlaceholder() throws IOException {
        List<String> withPlaceholders = codeBlockLines(ROOT.resolve("README.md"), "bash").stream()
                .filter(line -> PLACEHOLDER.matcher(withoutComment(line)).find())
                .toList();
        assertThat(withPlaceholders).isEmpty();
    }

    @Test
    void theReadmesConfigurationExampleIsValid() throws IOException {
        List<String> yaml = codeBlockLines(ROOT.resolve("README.md"), "yaml");
        assertThat(yaml).isNotEmpty();
        assertThat(ConfigLoader.check(String.join("\n", yaml), "README.md")).isEmpty();
    }

    private static Optional<String> problemWith(
            List<String> words, Set<String> launcherCommands, Set<String> createdFiles) {
        if (words.size() < 2) {
            return Optional.of("no command");
        }
        String command = words.get(1);
        if (launcherCommands.contains(command)) {
            return Optional.empty(); // the launcher's own (test, lab): not the CLI's to parse
        }
        if (!Cli.OPTIONS.containsKey(command)) {
            return Optional.of("'" + command + "' is not a command of the CLI " + Cli.OPTIONS.keySet()
                    + " nor of the launcher " + launcherCommands);
        }
        try {
            Arguments arguments = Arguments.parse(command, words.subList(2, words.size()), Cli.OPTIONS.get(command));
            Cli.engine(arguments);
            Optional<String> config = arguments.text("--config");
            if (config.isPresent()
                    && !createdFiles.contains(config.get())
                    && !Files.isRegularFile(ROOT.resolve(config.get()))) {
                return Optional.of("-c " + config.get()
                        + ": no earlier README command creates it and the repository has no such file");
            }
            return Optional.empty();
        } catch (UsageException e) {
            return Optional.of(e.getMessage());
        }
    }

    private static Optional<String> deadLink(Path doc, String target) throws IOException {
        if (target.matches("[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            return Optional.empty(); // http:, https:, mailto:: not a file in the repository
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? "" : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        String where = ROOT.relativize(doc) + ": (" + target + ")";
        if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
            return Optional.of(where + " leads to no file in the repository");
        }
        if (!anchor.isEmpty()
                && resolved.toString().endsWith(".md")
                && !headingAnchors(resolved).contains(anchor)) {
            return Optional.of(where + " names no heading of " + ROOT.relativize(resolved));
        }
        return Optional.empty();
    }

    /** The README, every page in docs/, and the lab's README, which the README links to. */
    private static List<Path> documents() throws IOException {
        List<Path> docs = new ArrayList<>();
        docs.add(ROOT.resolve("README.md"));
        docs.add(ROOT.resolve("sluice-lab/README.md"));
        try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
            pages.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    /** Link targets outside fenced code blocks. */
    private static List<String> links(Path doc) throws IOException {
        List<String> targets = new ArrayList<>();
        boolean inCode = false;
        for (String line : Files.readAllLines(doc)) {
            if (line.stripLeading().startsWith("```")) {
                inCode = !inCode;
            } else if (!inCode) {
                Matcher m = LINK.matcher(line);
                while (m.find()) {
                    targets.add(m.group(1));
                }
            }
        }
        return targets;
    }

    /** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to hyphens. */
    private static Set<String> headingAnchors(Path doc) throws IOException {
        Set<String> anchors = new HashSet<>();
        boolean inCode = false;
        for (String line : Files.readAllLines(doc)) {
            if (line.stripLeading().startsWith("```")) {
                inCode = !inCode;
            } else if (!inCode && line.startsWith("#")) {
                String text = line.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT);
                anchors.add(text.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }

    /** The lines of every fenced block of one language, with backslash continuations joined. */
    private static List<String> codeBlockLines(Path doc, String language) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean inBlock = false;
        boolean inOtherBlock = false;
        StringBuilder pending = new StringBuilder();
        for (String line : Files.readAllLines(doc)) {
            String fence = line.strip();
            if (fence.startsWith("```")) {
                if (!inBlock && !inOtherBlock) {
                    inBlock = fence.equals("```" + language);
                    inOtherBlock = !inBlock;
                } else {
                    inBlock = false;
                    inOtherBlock = false;
                }
            } else if (inBlock) {
                if (line.endsWith("\\")) {
                    pending.append(line, 0, line.length() - 1).append(' ');
                } else {
                    lines.add(pending.append(line).toString());
                    pending.setLength(0);
                }
            }
        }
        return lines;
    }

    /** The commands the launcher script runs itself rather than passing to the CLI ({@code test}, {@code lab}). */
    private static Set<String> launcherCommands() throws IOException {
        Set<String> commands = new HashSet<>();
        Matcher m = LAUNCHER_COMMAND.matcher(Files.readString(ROOT.resolve("sluice")));
        while (m.find()) {
            commands.add(m.group(1));
        }
        return commands;
    }

    private static String withoutComment(String line) {
        int hash = line.indexOf(" #");
        return hash < 0 ? line : line.substring(0, hash);
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isRegularFile(dir.resolve("sluice"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root (README.md beside ./sluice) above "
                + Path.of("").toAbsolutePath());
    }
}
