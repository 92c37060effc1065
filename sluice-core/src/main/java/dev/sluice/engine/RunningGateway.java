package dev.sluice.engine;

/** A started gateway. {@link #close()} stops accepting, lets in-flight requests finish (up to the grace period) and frees every resource. */
public interface RunningGateway extends AutoCloseable {

  /** The port it listens on (the real one when the configuration asked for 0). */
  int port();

  @Override
  void close();
}
