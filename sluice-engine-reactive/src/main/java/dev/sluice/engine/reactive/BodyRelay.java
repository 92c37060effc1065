package dev.sluice.engine.reactive;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import java.util.ArrayDeque;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import reactor.core.publisher.Operators;

/**
 * A proxied answer's body on its way to the client: the publisher Reactor Netty's server writes from.
 * It asks its {@link Source} for the next upstream read only while the server asks for buffers and the
 * client's connection takes them, so a slow client stops the upstream reads (and a client that stops
 * reading never has the whole body pulled into memory). Its state lives on the client connection's
 * loop ({@code home}); the exchange ({@link ProxyRoute}'s call) hands it what the upstream sends.
 */
final class BodyRelay implements Publisher<ByteBuf>, Subscription {

    /** The upstream side, as the relay sees it. */
    interface Source {
        /**
         * Reads the upstream's next buffers if it can now (a connection, and a client connection that
         * is writable); returns whether a read was asked for.
         */
        boolean read();

        /** The client cancelled the body: the exchange is over. */
        void cancelled();
    }

    private final EventLoop home;
    private final Source source;
    private final ArrayDeque<ByteBuf> body = new ArrayDeque<>(4);
    private final Runnable whenWritable = this::drain; // the client's connection takes bytes again
    private WriteGate gate; // the client connection's, once the upstream answered
    private Subscriber<? super ByteBuf> relay;
    private long demand;
    private boolean reading; // a read was asked for and nothing has come of it yet
    private boolean ended; // the upstream's body ended
    private Throwable broken; // the upstream failed after its status line
    private boolean relayDone;
    private boolean stopped;
    private boolean draining;
    private boolean missed;

    BodyRelay(EventLoop home, Source source) {
        this.home = home;
        this.source = source;
    }

    /** The client connection's gate: it calls back when the connection is writable again. */
    void gate(WriteGate gate) {
        this.gate = gate;
        gate.onWritable(whenWritable);
    }

    /** The upstream's next buffer (on the home loop). */
    void add(ByteBuf content) {
        reading = false;
        body.add(content);
        drain();
    }

    /** The upstream's body ended (on the home loop). */
    void end() {
        ended = true;
        drain();
    }

    /** Whether the upstream's body ended. */
    boolean ended() {
        return ended;
    }

    /** The upstream failed after its status line (on the home loop): the client's body is cut short. */
    void fail(Throwable error) {
        broken = error;
        drain();
    }

    /** The exchange is over: buffers not relayed are freed, and nothing more is relayed. */
    void stop() {
        stopped = true;
        stopWaitingForWritable();
        ByteBuf chunk;
        while ((chunk = body.poll()) != null) {
            chunk.release();
        }
    }

    @Override
    public void subscribe(Subscriber<? super ByteBuf> subscriber) {
        onLoop(() -> {
            if (relay != null) {
                Operators.error(subscriber, new IllegalStateException("one subscriber only"));
                return;
            }
            relay = subscriber;
            subscriber.onSubscribe(this);
            drain();
        });
    }

    @Override
    public void request(long n) {
        onLoop(() -> {
            demand = Operators.addCap(demand, n);
            drain();
        });
    }

    @Override
    public void cancel() {
        onLoop(source::cancelled);
    }

    private void drain() {
        if (draining) {
            missed = true;
            return;
        }
        draining = true;
        try {
            do {
                missed = false;
                if (relay == null || relayDone) {
                    return;
                }
                while (demand > 0 && !body.isEmpty() && !stopped) {
                    demand--;
                    relay.onNext(body.poll());
                }
                if (stopped || !body.isEmpty()) {
                    continue;
                }
                if (broken != null) {
                    relayDone = true;
                    stopWaitingForWritable();
                    relay.onError(broken);
                } else if (ended) {
                    relayDone = true;
                    stopWaitingForWritable();
                    relay.onComplete();
                } else if (demand > 0 && !reading) {
                    // Reactor Netty asks for many buffers ahead: read only while the client takes
                    // what was read (the gate calls back when its connection is writable again)
                    reading = source.read();
                }
            } while (missed);
        } finally {
            draining = false;
        }
    }

    private void stopWaitingForWritable() {
        if (gate != null) {
            gate.stopOnWritable(whenWritable);
        }
    }

    private void onLoop(Runnable task) {
        if (home.inEventLoop()) {
            task.run();
        } else {
            home.execute(task);
        }
    }
}
