package smbdirect.rdma.iwarp.internal;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/** The reused completion flyweight of one endpoint (I/O thread only). */
final class IwarpWorkCompletion implements WorkCompletion {

    private long wrId;
    private WorkRequestType type;
    private CompletionStatus status;
    private int byteLength;
    private boolean invalidated;
    private int invalidatedToken;

    IwarpWorkCompletion fill(long id, WorkRequestType t, CompletionStatus s, int bytes, boolean inv, int token) {
        wrId = id;
        type = t;
        status = s;
        byteLength = bytes;
        invalidated = inv;
        invalidatedToken = token;
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
        return invalidated;
    }

    @Override
    public int invalidatedToken() {
        return invalidatedToken;
    }

    @Override
    public int vendorError() {
        return 0;
    }

    @Override
    public String toString() {
        return type + " wrId " + wrId + " " + status + " " + byteLength + " bytes"
                + (invalidated ? " invalidated 0x" + Integer.toHexString(invalidatedToken) : "");
    }
}
