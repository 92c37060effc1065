package dev.sluice.app;

import java.util.ArrayList;
import java.util.List;

/**
 * One line of a shell snippet split the way bash would split it, far enough to check a README's
 * commands: quoted words, a trailing {@code #} comment, and the operators that end a simple command
 * ({@code | & ; ( )}) or start a redirection ({@code > <}). Not a shell: no expansions, no here-docs.
 *
 * @param commands the simple commands on the line, each as its words (redirections left out)
 * @param redirectTargets the files the line redirects into or out of, in order
 */
record ShellLine(List<List<String>> commands, List<String> redirectTargets) {

    static ShellLine parse(String line) {
        List<List<String>> commands = new ArrayList<>();
        List<String> redirects = new ArrayList<>();
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        boolean redirectNext = false;
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == '\'' || c == '"') {
                int end = line.indexOf(c, i + 1);
                if (end < 0) {
                    throw new IllegalArgumentException("unclosed quote in: " + line);
                }
                word.append(line, i + 1, end);
                inWord = true;
                i = end + 1;
                continue;
            }
            boolean blank = Character.isWhitespace(c);
            boolean operator = "|&;()<>".indexOf(c) >= 0;
            boolean comment = c == '#' && !inWord;
            if (blank || operator || comment) {
                if (inWord) {
                    (redirectNext ? redirects : words).add(word.toString());
                    redirectNext = false;
                    word.setLength(0);
                    inWord = false;
                }
                if (comment) {
                    break;
                }
                if (c == '>' || c == '<') {
                    redirectNext = true;
                } else if (operator && !words.isEmpty()) {
                    commands.add(List.copyOf(words));
                    words.clear();
                }
                i++;
                continue;
            }
            word.append(c);
            inWord = true;
            i++;
        }
        if (inWord) {
            (redirectNext ? redirects : words).add(word.toString());
        }
        if (!words.isEmpty()) {
            commands.add(List.copyOf(words));
        }
        return new ShellLine(List.copyOf(commands), List.copyOf(redirects));
    }
}
