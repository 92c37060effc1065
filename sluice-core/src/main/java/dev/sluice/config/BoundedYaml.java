package dev.sluice.config;

import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/**
 * A YAML document loaded with its nesting bounded. SnakeYAML's composer recurses once per level, so
 * a document of a few thousand {@code [} was a {@code StackOverflowError}, not a refusal (found by
 * the fuzzer): the nesting is measured first, on the parser's events (an iterative pass), and a
 * document past the bound is refused with the line and column where it goes too deep.
 */
public final class BoundedYaml {

    private BoundedYaml() {}

    /**
     * Parses {@code yaml} into maps, lists and scalars.
     *
     * @param label the document's name in messages
     * @param maxNesting how deep collections may nest
     * @param settings SnakeYAML's settings (the label among them)
     * @throws YamlEngineException when it does not parse or nests deeper than {@code maxNesting}
     */
    public static Object load(String yaml, int maxNesting, LoadSettings settings) {
        int depth = 0;
        for (Event event : new Parse(settings).parseString(yaml)) {
            switch (event.getEventId()) {
                case SequenceStart, MappingStart -> {
                    if (++depth > maxNesting) {
                        String at = event.getStartMark()
                                .map(m -> "line " + (m.getLine() + 1) + ", column " + (m.getColumn() + 1) + ": ")
                                .orElse("");
                        throw new YamlEngineException(at + "collections nested deeper than " + maxNesting
                                + " levels (expected: at most " + maxNesting + ")");
                    }
                }
                case SequenceEnd, MappingEnd -> depth--;
                default -> {}
            }
        }
        return new Load(settings).loadFromString(yaml);
    }
}
