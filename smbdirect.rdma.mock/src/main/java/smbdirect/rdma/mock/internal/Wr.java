package smbdirect.rdma.mock.internal;

import smbdirect.api.rdma.WorkRequestType;

/** A posted work request; pooled per endpoint, guarded by the endpoint's lock. */
final class Wr {
    long wrId;
    WorkRequestType type;
    MockRegion region;
    int offset;
    int length;
    long remoteAddress;
    int remoteToken;
    boolean withInvalidate;
    long sequence;
}
