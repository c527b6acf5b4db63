package smbdirect.rdma.verbs.internal;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * The reused completion flyweight of one endpoint: refilled before each
 * {@code RdmaEndpointHandler.onCompletion} and valid only during that call. Used only by the
 * endpoint's completion thread.
 */
final class VerbsWorkCompletion implements WorkCompletion {

    private long wrId;
    private WorkRequestType type;
    private CompletionStatus status;
    private int byteLength;
    private boolean hasInvalidatedToken;
    private int invalidatedToken;
    private int vendorError;

    VerbsWorkCompletion fill(long wrId, WorkRequestType type, CompletionStatus status, int byteLength,
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

    @Override
    public String toString() {
        return "WorkCompletion[wrId=" + wrId + ", " + type + ", " + status + ", bytes=" + byteLength
                + (hasInvalidatedToken ? ", invalidated=0x" + Integer.toHexString(invalidatedToken) : "")
                + (vendorError != 0 ? ", vendor_err=0x" + Integer.toHexString(vendorError) : "") + "]";
    }
}
