package dev.sluice.engine.blocking;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Looks at the HTTP/1.1 client connections whose request waits, for a client that resets its
 * connection: Jetty reads nothing of such a connection until its answer is written, so a client that
 * left would be noticed only then. One platform thread per gateway with a selector of its own (a
 * socket may be registered with more than one), beside Jetty's: a connection is registered once its
 * exchange has lasted a tick (an exchange answered sooner costs a queue entry, no system call) and
 * its request was read whole, and deregistered when the exchange ends ({@link ClientDeparture}).
 */
final class Hangups implements AutoCloseable {

    private static final long TICK_MILLIS = 100;

    private final Selector selector;
    private final Queue<ClientDeparture> arriving = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private List<ClientDeparture> aging = new ArrayList<>(); // arrived by the last tick: the watcher's thread only
    private volatile boolean closed;

    Hangups() {
        try {
            selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the selector that watches for clients that leave", e);
        }
        thread = Thread.ofPlatform().daemon().name("sluice-hangups").start(this::run);
    }

    /** Watches the exchange's connection from its next tick but one, until the exchange ends. */
    void watch(ClientDeparture departure) {
        arriving.offer(departure);
    }

    private void run() {
        while (!closed) {
            try {
                selector.select(this::ready, TICK_MILLIS);
                tick();
            } catch (IOException | ClosedSelectorException e) {
                return; // closed with the gateway
            }
        }
    }

    private void ready(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        ClientDeparture departure = (ClientDeparture) key.attachment();
        boolean watching;
        try {
            watching = departure.readable((SocketChannel) key.channel());
        } catch (RuntimeException e) { // a connection that went away meanwhile: no longer watched
            watching = false;
        }
        if (!watching) {
            key.cancel();
        }
    }

    /**
     * Registers what has waited a tick and is still under way; what arrived since waits for the next.
     * A failure is one connection's: every other one is still looked at.
     */
    private void tick() {
        List<ClientDeparture> old = aging;
        aging = new ArrayList<>();
        for (ClientDeparture departure; (departure = arriving.poll()) != null; ) {
            aging.add(departure);
        }
        for (ClientDeparture departure : old) {
            if (departure.over()) {
                continue;
            }
            if (!departure.readWhole()) {
                aging.add(departure); // its body is still being read: Jetty's reads see a reset
                continue;
            }
            try {
                SelectionKey key = departure.channel().register(selector, SelectionKey.OP_READ, departure);
                if (!departure.watching(key)) {
                    key.cancel();
                }
            } catch (java.nio.channels.CancelledKeyException e) {
                // the connection's last exchange was deregistered after this turn's select began: next tick
                aging.add(departure);
            } catch (ClosedChannelException | RuntimeException e) {
                // the connection is gone, or not Jetty's (IllegalBlockingModeException): nothing to watch
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        selector.wakeup();
        try {
            thread.join(5_000);
            selector.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
