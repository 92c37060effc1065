package dev.sluice.redis;

import io.lettuce.core.resource.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ReflectiveChannelFactory;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The store's name resolvers: Netty's asynchronous DNS resolver, as Lettuce's default is, but the
 * store's own, closed before its event loops stop, and closed when each of its channels has closed.
 *
 * <p>Lettuce's default is one static group that is never closed. Each event loop that connects gets
 * a resolver from it, with a UDP channel whose read is armed; when a store closed, its loops stopped
 * under that channel, and on io_uring the armed read's buffer was never given back (a leak report
 * in the reactive engine's tests, about one store in thirty). A channel closed here hands its buffer
 * back only when its cancelled read completes, so {@link #close(Duration)} waits on the channels'
 * own close futures; a resolver asked for after it began makes no channel.
 */
final class StoreResolvers {

    private final ChannelGroup channels = new DefaultChannelGroup("sluice-redis-dns", GlobalEventExecutor.INSTANCE);
    private final AddressResolverGroup<InetSocketAddress> group;
    private boolean closed; // guarded by this: no channel is made once it is set

    StoreResolvers() {
        ChannelFactory<? extends DatagramChannel> datagrams =
                new ReflectiveChannelFactory<>(Transports.datagramChannelClass());
        ChannelFactory<? extends SocketChannel> streams =
                new ReflectiveChannelFactory<>(Transports.socketChannelClass().asSubclass(SocketChannel.class));
        this.group = new DnsAddressResolverGroup(new DnsNameResolverBuilder()
                .datagramChannelFactory(() -> track(datagrams.newChannel()))
                .socketChannelFactory(() -> track(streams.newChannel())));
    }

    /** The group for Lettuce's {@code ClientResources}. */
    AddressResolverGroup<InetSocketAddress> group() {
        return group;
    }

    private synchronized <C extends Channel> C track(C channel) {
        if (closed) {
            channel.unsafe().closeForcibly();
            throw new IllegalStateException("the Redis store is closed");
        }
        channels.add(channel);
        return channel;
    }

    /**
     * Closes every resolver and waits, up to {@code timeout} in all, until each of their channels has
     * closed (its armed read cancelled and given back); call it while the event loops still run.
     */
    void close(Duration timeout) {
        List<Channel> open;
        synchronized (this) {
            closed = true;
            open = new ArrayList<>(channels);
        }
        group.close(); // each resolver closes its channel, on its loop
        channels.close(); // and whatever a resolver did not
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Channel channel : open) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !channel.closeFuture().awaitUninterruptibly(left, TimeUnit.NANOSECONDS)) {
                return; // the loops' own shutdown closes what is left
            }
        }
    }
}
