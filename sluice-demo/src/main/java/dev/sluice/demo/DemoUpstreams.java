package dev.sluice.demo;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.BindException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

/**
 * The demo's upstream services, each its own HTTP server on loopback, at consecutive ports from a
 * base (19081 by default):
 *
 * <pre>
 *   base+0 products   GET /products (catalogue page, ~16 KB), GET /products/{id} (~16 KB)
 *   base+1 customers  GET /customers/{id} (~5 KB)
 *   base+2 reviews    GET /reviews[?product=ID] (~7 KB)
 *   base+3 delay      GET /delay[?ms=30&amp;index=1]   {"index":1,"data":"test data"} after 30 ms (seed 004)
 *   base+4 blocking   GET /blocking[?ms=5000]        JSON after 5 s (seed 001)
 *   base+5 limited    GET /limited                   1 call per 200 ms, else 429 + Retry-After (seed 003)
 * </pre>
 *
 * Every server also answers {@code GET /health}. The servers are cheap on purpose (benchmarks run
 * beside them): they share one small thread pool and one timer, handlers never block, and bodies
 * come from pre-built read-only buffers.
 */
public final class DemoUpstreams implements AutoCloseable {

    /** The default port of the first upstream. */
    public static final int DEFAULT_PORT_BASE = 19081;
    /** The services, in port order. */
    public static final List<String> NAMES =
            List.of("products", "customers", "reviews", "delay", "blocking", "limited");

    private final QueuedThreadPool threads;
    private final ScheduledExecutorScheduler timer;
    private final List<Server> servers;
    private final Map<String, URI> urls;

    private DemoUpstreams(
            QueuedThreadPool threads, ScheduledExecutorScheduler timer, List<Server> servers, Map<String, URI> urls) {
        this.threads = threads;
        this.timer = timer;
        this.servers = servers;
        this.urls = Collections.unmodifiableMap(urls);
    }

    /**
     * Starts the six upstreams.
     *
     * @param host the address to bind, such as {@code 127.0.0.1}
     * @param portBase the first port (the others follow it), or 0 to let each server take any free
     *     port (tests)
     * @throws PortInUseException when one of the ports is taken (nothing is left running)
     */
    public static DemoUpstreams start(String host, int portBase) throws IOException {
        requireNonNull(host, "host");
        if (portBase != 0 && (portBase < 1 || portBase > 65535 - (NAMES.size() - 1))) {
            throw new IllegalArgumentException(
                    "portBase: " + portBase + " (expected: 0 or 1.." + (65535 - (NAMES.size() - 1)) + ")");
        }
        // Shared by all six servers: one selector each plus workers; handlers never block, so a few
        // dozen threads serve thousands of connections.
        QueuedThreadPool threads = new QueuedThreadPool(32, 4, 30_000);
        threads.setName("demo-upstream");
        ScheduledExecutorScheduler timer = new ScheduledExecutorScheduler("demo-upstream-timer", true);
        ByteBufferPool buffers = new ArrayByteBufferPool();
        List<Server> servers = new ArrayList<>();
        Map<String, URI> urls = new LinkedHashMap<>();
        DemoUpstreams upstreams = new DemoUpstreams(threads, timer, servers, urls);
        try {
            threads.start();
            timer.start();
            List<DemoService> services = services();
            for (int i = 0; i < services.size(); i++) {
                DemoService service = services.get(i);
                int port = portBase == 0 ? 0 : portBase + i;
                Server server = new Server(threads, timer, buffers);
                HttpConfiguration http = new HttpConfiguration();
                http.setSendServerVersion(false);
                http.setSendXPoweredBy(false);
                http.setHeaderCacheSize(0); // no per-connection header trie: tens of KB on each connection
                // No acceptor threads: the one selector accepts too, so six servers cost few threads.
                ServerConnector connector = new ServerConnector(server, 0, 1, new HttpConnectionFactory(http));
                connector.setHost(host);
                connector.setPort(port);
                connector.setAcceptQueueSize(1024);
                server.addConnector(connector);
                server.setHandler(service);
                servers.add(server);
                try {
                    server.start();
                } catch (IOException e) {
                    if (isBindFailure(e)) {
                        throw new PortInUseException(port, service.name(), e);
                    }
                    throw e;
                }
                urls.put(service.name(), URI.create("http://" + urlHost(host) + ":" + connector.getLocalPort()));
            }
            return upstreams;
        } catch (IOException | RuntimeException e) {
            upstreams.close();
            throw e;
        } catch (Exception e) {
            upstreams.close();
            throw new IOException("demo upstreams could not start: " + e, e);
        }
    }

    private static List<DemoService> services() {
        return List.of(
                new DocumentServices.Products(),
                new DocumentServices.Customers(),
                new DocumentServices.Reviews(),
                new TimedServices.Delay(),
                new TimedServices.Blocking(),
                new TimedServices.Limited(TimedServices.Limited.DEFAULT_INTERVAL));
    }

    private static boolean isBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException) {
                return true;
            }
        }
        return false;
    }

    private static String urlHost(String host) {
        if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            return "127.0.0.1";
        }
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    /** Base URL of each upstream by name ({@link #NAMES} order), such as {@code http://127.0.0.1:19081}. */
    public Map<String, URI> urls() {
        return urls;
    }

    /** Stops every server, then the shared thread pool and timer. */
    @Override
    public void close() {
        for (Server server : servers) {
            try {
                server.stop();
            } catch (Exception e) {
                // stopping the rest matters more
            }
        }
        try {
            timer.stop();
            threads.stop();
        } catch (Exception e) {
            // nothing left to free
        }
    }
}
