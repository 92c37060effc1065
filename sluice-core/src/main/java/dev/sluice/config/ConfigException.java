package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.util.List;

/** A configuration was refused; {@link #problems()} lists everything wrong with it, each with its path. */
public final class ConfigException extends Exception {

    private final String source;
    private final List<Problem> problems;

    /**
     * @param source the file name (or other label) the configuration came from
     * @param problems at least one problem
     */
    public ConfigException(String source, List<Problem> problems) {
        super(message(requireNonNull(source, "source"), requireNonNull(problems, "problems")));
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("problems: [] (expected: at least one problem)");
        }
        this.source = source;
        this.problems = List.copyOf(problems);
    }

    /** Every problem found, in the order of the file. */
    public List<Problem> problems() {
        return problems;
    }

    /** The file name (or label) of the refused configuration. */
    public String source() {
        return source;
    }

    private static String message(String source, List<Problem> problems) {
        StringBuilder sb = new StringBuilder();
        sb.append(problems.size())
                .append(problems.size() == 1 ? " problem" : " problems")
                .append(" in ")
                .append(source)
                .append(':');
        for (Problem p : problems) {
            sb.append("\n  ").append(p);
        }
        return sb.toString();
    }
}
