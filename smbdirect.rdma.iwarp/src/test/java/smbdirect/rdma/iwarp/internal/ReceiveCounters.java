package smbdirect.rdma.iwarp.internal;

import smbdirect.api.rdma.RdmaEndpoint;

/**
 * Test access to an endpoint's receive-side counters, its choice of the staged or the direct read,
 * and the size of its transmit batch.
 */
public final class ReceiveCounters {

    public final long fpdus;
    public final long socketReads;
    public final long spilledBytes;
    /** Bytes read through the loop's staging buffer. */
    public final long stagedBytes;
    /** Bytes read from the socket in RDMA mode. */
    public final long bytesRead;
    /** The largest FPDU of the peer so far. */
    public final long peerFpdu;

    private ReceiveCounters(long[] c) {
        fpdus = c[0];
        socketReads = c[1];
        spilledBytes = c[2];
        stagedBytes = c[3];
        bytesRead = c[4];
        peerFpdu = c[5];
    }

    /** The counters of {@code endpoint}, an endpoint of this provider. */
    public static ReceiveCounters of(RdmaEndpoint endpoint) {
        return new ReceiveCounters(((IwarpEndpoint) endpoint).receiveCounters());
    }

    /**
     * The FPDU slots of {@code endpoint}'s transmit batch: 64 until a batch fills them, then 256.
     */
    public static int transmitBatchSlots(RdmaEndpoint endpoint) {
        return ((IwarpEndpoint) endpoint).transmitBatchSlots();
    }

    /**
     * From now on, {@code endpoint} (in RDMA mode) reads peer FPDUs of at most {@code limit} bytes
     * through its loop's staging buffer; 0 turns staging off (every read direct, as a connection
     * whose peer sends large FPDUs reads).
     */
    public static void stagingLimit(RdmaEndpoint endpoint, int limit) {
        if (!((IwarpEndpoint) endpoint).receiveStagingLimit(limit)) {
            throw new IllegalStateException(endpoint + " is not in RDMA mode");
        }
    }

    @Override
    public String toString() {
        return fpdus + " FPDUs in " + socketReads + " reads (" + bytesRead + " bytes, " + stagedBytes + " staged), "
                + spilledBytes + " bytes spilled, largest peer FPDU " + peerFpdu;
    }
}
