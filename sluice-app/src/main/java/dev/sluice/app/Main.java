package dev.sluice.app;

/** The {@code sluice} command. */
public final class Main {

    private Main() {}

    public static void main(String[] args) {
        LibraryDefaults.apply(System.getProperties()); // first: before any Netty class reads them
        System.exit(new Cli(System.out, System.err).run(args));
    }
}
