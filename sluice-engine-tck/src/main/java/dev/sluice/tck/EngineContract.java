package dev.sluice.tck;

import dev.sluice.config.EngineMode;
import dev.sluice.config.Transport;
import org.junit.jupiter.api.Nested;

/**
 * The engine contract ({@code docs/ENGINE-CONTRACT.md}) as one suite. An engine module runs it for a
 * mode with one class, the way Netty runs one socket suite per transport:
 *
 * <pre>
 *   class VirtualModeContractTest extends EngineContract {
 *     &#64;Override protected EngineMode mode() { return EngineMode.VIRTUAL; }
 *   }
 * </pre>
 *
 * Each group below is a {@link Nested} class that JUnit discovers through the subclass; the tests
 * themselves live in the abstract {@code *Contract} classes so no file holds the whole suite.
 */
public abstract class EngineContract {

    /** The engine mode under test; its engine must be on the class path (ServiceLoader). */
    protected abstract EngineMode mode();

    /** The socket transport under test ({@code server.transport}); {@code auto} unless overridden. */
    protected Transport transport() {
        return Transport.AUTO;
    }

    @Nested
    class Routing extends RoutingContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Proxy extends ProxyContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class ProxyHeaders extends ProxyHeadersContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Errors extends ProxyErrorsContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class InternalErrors extends InternalErrorContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Composition extends CompositionContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class H2Composition extends H2CompositionContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class CompositionCompleteness extends CompositionCompletenessContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Head extends HeadContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class CompositionCache extends CompositionCacheContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class CompositionFailures extends CompositionFailuresContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class RequestBody extends RequestBodyContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class UpstreamResponses extends UpstreamResponseContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class RequestFraming extends RequestFramingContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class ClientEdges extends ClientEdgeContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class ClientLeaves extends ClientLeavesContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Pacing extends PacingContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Server extends ServerContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Concurrency extends ConcurrencyContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    /** Forks a gateway JVM with a 64 MB heap per test. */
    @Nested
    class Streaming extends StreamingContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    /** Forks a gateway JVM with a 64 MB heap: clients that never read a composition. */
    @Nested
    class ReadAheadBudget extends ReadAheadBudgetContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class PathSafety extends PathSafetyContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Observer extends ObserverContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Policies extends PolicyContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Limits extends LimitsContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Auth extends AuthContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class RateLimits extends RateLimitContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class IpFilters extends IpFilterContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Tls extends TlsContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Http2 extends Http2Contract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Http2Bodies extends Http2BodyContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Http2StreamState extends Http2StreamStateContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class CorsFilters extends CorsContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Resilience extends ResilienceContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class WebSockets extends WebSocketContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Compression extends CompressionContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class UpstreamTls extends UpstreamTlsContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Http2Conformance extends Http2ConformanceContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class CompositionShaping extends CompositionShapingContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class CompositionDelivery extends CompositionDeliveryContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class PolicySpi extends PolicySpiContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Traffic extends TrafficContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class Grpc extends GrpcContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class CompositionChains extends CompositionChainContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class CompositionCollections extends CompositionCollectionContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class PoolRetirement extends PoolRetirementContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class ShapedReadAhead extends ShapedReadAheadContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class GrpcWeb extends GrpcWebContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class ReadAheadLiveness extends ReadAheadLivenessContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class GrpcTranscode extends GrpcTranscodeContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }

    @Nested
    class GrpcComposition extends GrpcCompositionContract {
        @Override
        protected EngineMode mode() {
            return EngineContract.this.mode();
        }

        @Override
        protected Transport transport() {
            return EngineContract.this.transport();
        }
    }
}
