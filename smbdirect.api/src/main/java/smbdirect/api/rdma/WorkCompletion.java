package smbdirect.api.rdma;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The completion of one work request (a verbs work completion). A reused flyweight: valid only
 * during {@link RdmaEndpointHandler#onCompletion}.
 */
@ProviderType
public interface WorkCompletion {

    /** The {@code wrId} given when the request was posted. */
    long wrId();

    /** Which kind of work request completed. */
    WorkRequestType type();

    /** Whether it succeeded, and if not why. */
    CompletionStatus status();

    /** For a receive: the number of bytes received; for RDMA: the bytes transferred; else 0. */
    int byteLength();

    /** For a receive: whether the message was a Send with Invalidate that invalidated a local region. */
    boolean hasInvalidatedToken();

    /** The invalidated local token, meaningful when {@link #hasInvalidatedToken()} is true. */
    int invalidatedToken();

    /** Provider-specific error code (verbs vendor_err), 0 when none. */
    int vendorError();
}
