package smbdirect.rdma.iwarp.internal;

import smbdirect.api.rdma.RdmaEndpoint;

/** Test access to an endpoint's receive-side counters. */
public final class ReceiveCounters {

    public final long fpdus;
    public final long socketReads;
    public final long spilledBytes;

    private ReceiveCounters(long[] c) {
        fpdus = c[0];
        socketReads = c[1];
        spilledBytes = c[2];
    }

    /** The counters of {@code endpoint}, an endpoint of this provider. */
    public static ReceiveCounters of(RdmaEndpoint endpoint) {
        return new ReceiveCounters(((EndpointImpl) endpoint).receiveCounters());
    }

    @Override
    public String toString() {
        return fpdus + " FPDUs in " + socketReads + " reads, " + spilledBytes + " bytes spilled";
    }
}
