package dev.sluice.transcode;

/**
 * A transcoded call refused or failed, with the HTTP status the client is answered and the reason,
 * answered as {@code {"code": <grpc code>, "message": <reason>}} ({@link TranscodeAnswer#error}).
 */
public final class TranscodeException extends Exception {

    private final int grpcCode;

    public TranscodeException(int grpcCode, String reason) {
        super(reason, null, false, false);
        this.grpcCode = grpcCode;
    }

    /** The gRPC status code of the failure (3 INVALID_ARGUMENT for a request the gateway cannot read). */
    public int grpcCode() {
        return grpcCode;
    }

    /** The HTTP status of the answer ({@link TranscodeAnswer#httpStatus}). */
    public int httpStatus() {
        return TranscodeAnswer.httpStatus(grpcCode);
    }
}
