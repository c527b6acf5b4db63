package smbdirect.rdma.mock.internal;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * A queued callback. Doubles as the {@link WorkCompletion} flyweight handed to the handler;
 * pooled per endpoint and reused after delivery. Guarded by the owner's lock while queued; owned
 * by the delivering thread while delivered.
 */
final class Event implements WorkCompletion {
    static final int COMPLETION = 0;
    static final int ESTABLISHED = 1;
    static final int DISCONNECTED = 2;
    static final int CONNECT_REQUEST = 3;
    static final int LISTENER_FAILED = 4;

    int kind;
    long wrId;
    WorkRequestType type;
    CompletionStatus status;
    int byteLength;
    boolean invalidated;
    int invalidatedToken;
    int vendorError;
    DisconnectCause cause;
    String detail;
    byte[] data;
    ConnectRequestImpl request;

    void clear() {
        type = null;
        status = null;
        cause = null;
        detail = null;
        data = null;
        request = null;
        invalidated = false;
        invalidatedToken = 0;
        byteLength = 0;
        vendorError = 0;
        wrId = 0;
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
        return vendorError;
    }

    @Override
    public String toString() {
        return "WorkCompletion[wrId=" + wrId + ", type=" + type + ", status=" + status + ", byteLength="
                + byteLength + (invalidated ? ", invalidated=0x" + Integer.toHexString(invalidatedToken) : "")
                + "]";
    }
}
