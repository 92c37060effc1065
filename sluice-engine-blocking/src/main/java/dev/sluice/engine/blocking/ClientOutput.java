package dev.sluice.engine.blocking;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;

/**
 * Blocking writes to a Jetty response, with a small staging buffer so that a composition's framing
 * bytes and small parts leave in one write instead of many. The response is always streamed
 * (chunked unless the caller set a Content-Length): {@link #finish()} never turns the first write
 * into a fixed-length one.
 */
final class ClientOutput {

  private final Response response;
  private final byte[] staging;
  private int staged;

  ClientOutput(Response response, int stagingBytes) {
    this.response = response;
    this.staging = new byte[stagingBytes];
  }

  void write(byte[] bytes) throws IOException {
    write(bytes, 0, bytes.length);
  }

  void write(byte[] bytes, int offset, int length) throws IOException {
    if (staged + length > staging.length) {
      flush();
      if (length >= staging.length) {
        send(false, ByteBuffer.wrap(bytes, offset, length));
        return;
      }
    }
    System.arraycopy(bytes, offset, staging, staged, length);
    staged += length;
  }

  boolean hasStaged() {
    return staged > 0;
  }

  /** Sends what is staged, so the client sees it now (before a wait). */
  void flush() throws IOException {
    if (staged > 0) {
      send(false, ByteBuffer.wrap(staging, 0, staged));
      staged = 0;
    }
  }

  /** Sends what is staged and ends the response. */
  void finish() throws IOException {
    if (!response.isCommitted()) {
      flush(); // commits as streamed: a last first write would become a fixed-length response
      send(true, ByteBuffer.allocate(0));
      return;
    }
    send(true, ByteBuffer.wrap(staging, 0, staged));
    staged = 0;
  }

  static void send(Response response, boolean last, ByteBuffer buffer) throws IOException {
    try (Blocker.Callback callback = Blocker.callback()) {
      response.write(last, buffer, callback);
      callback.block();
    }
  }

  private void send(boolean last, ByteBuffer buffer) throws IOException {
    send(response, last, buffer);
  }
}
