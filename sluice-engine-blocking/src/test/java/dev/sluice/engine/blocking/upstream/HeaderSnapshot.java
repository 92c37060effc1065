package dev.sluice.engine.blocking.upstream;

/**
 * The status line and headers of a response, copied once into flat arrays: the part of {@link
 * UpstreamResponse} that clients whose own header types differ (the JDK's and Jetty's) share.
 */
abstract class HeaderSnapshot implements UpstreamResponse {

    private final int status;
    private final String[] names;
    private final String[] values;
    private final long contentLength;

    /**
     * @param names header names, one entry per value
     * @param values header values, parallel to {@code names}
     * @param contentLength the body length from Content-Length, or -1
     */
    HeaderSnapshot(int status, String[] names, String[] values, long contentLength) {
        this.status = status;
        this.names = names;
        this.values = values;
        this.contentLength = contentLength;
    }

    @Override
    public final int status() {
        return status;
    }

    @Override
    public final int headerCount() {
        return names.length;
    }

    @Override
    public final String headerName(int i) {
        return names[i];
    }

    @Override
    public final String headerValue(int i) {
        return values[i];
    }

    @Override
    public final long contentLength() {
        return contentLength;
    }
}
