package smbdirect.api.rdma;

/**
 * A {@link WorkCompletion} a provider refills before each
 * {@link RdmaEndpointHandler#onCompletion} call and reuses, so that completing work allocates
 * nothing: the one flyweight the providers share. The handler may read it only during that call
 * (the contract of {@code onCompletion}); a provider keeps one per thread that delivers completions
 * (an endpoint's or a completion thread's), never shared between threads.
 */
public final class MutableWorkCompletion implements WorkCompletion {

    private long wrId;
    private WorkRequestType type;
    private CompletionStatus status;
    private int byteLength;
    private boolean hasInvalidatedToken;
    private int invalidatedToken;
    private int vendorError;

    /**
     * Sets every field and returns this completion.
     *
     * @param wrId the caller's work request id
     * @param type the request's type
     * @param status its outcome
     * @param byteLength bytes received (receive) or transferred (RDMA), else 0
     * @param hasInvalidatedToken whether a peer's Send with Invalidate invalidated {@code invalidatedToken}
     * @param invalidatedToken the token invalidated, when {@code hasInvalidatedToken}
     * @param vendorError the device's vendor error, 0 when it reports none
     */
    public MutableWorkCompletion fill(long wrId, WorkRequestType type, CompletionStatus status, int byteLength,
            boolean hasInvalidatedToken, int invalidatedToken, int vendorError) {
        this.wrId = wrId;
        this.type = type;
        this.status = status;
        this.byteLength = byteLength;
        this.hasInvalidatedToken = hasInvalidatedToken;
        this.invalidatedToken = invalidatedToken;
        this.vendorError = vendorError;
        return this;
    }

    @Override
    public long wrId() {
        return wrId;
    }

    @Override
    public WorkRequestType type() {
        return type;
    }

    @Override
    public CompletionStatus status() {
        return status;
    }

    @Override
    public int byteLength() {
        return byteLength;
    }

    @Override
    public boolean hasInvalidatedToken() {
        return hasInvalidatedToken;
    }

    @Override
    public int invalidatedToken() {
        return invalidatedToken;
    }

    @Override
    public int vendorError() {
        return vendorError;
    }

    /** The completion in one line, e.g. {@code RECEIVE wrId 7 SUCCESS 1364 bytes invalidated 0x1a2b}. */
    @Override
    public String toString() {
        return type + " wrId " + wrId + " " + status + " " + byteLength + " bytes"
                + (hasInvalidatedToken ? " invalidated 0x" + Integer.toHexString(invalidatedToken) : "")
                + (vendorError != 0 ? " vendor_err 0x" + Integer.toHexString(vendorError) : "");
    }
}
