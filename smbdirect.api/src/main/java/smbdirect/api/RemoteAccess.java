package smbdirect.api;

/**
 * What the peer may do with a registered buffer (3.1.4.3). Least access is the rule (RFC 5042):
 * register a buffer the peer reads from with {@link #READ}, one it writes into with
 * {@link #WRITE}, and the local side of your own RDMA Read or Write (the source of an RDMA Write,
 * the destination of an RDMA Read) with {@link #LOCAL_ONLY}.
 */
public enum RemoteAccess {
    /**
     * Local use only: the buffer is the source or destination of this side's own RDMA Reads and
     * Writes ({@link SmbDirectConnection#rdmaWrite}, {@link SmbDirectConnection#rdmaRead}); the peer
     * cannot reach it and it has no descriptors to send.
     *
     * @since 1.2
     */
    LOCAL_ONLY,
    /** The peer may RDMA Read from the buffer. */
    READ,
    /** The peer may RDMA Write into the buffer. */
    WRITE,
    /** The peer may RDMA Read and Write. */
    READ_WRITE;


    /** Whether the peer may read. */
    public boolean allowsRead() {
        return this == READ || this == READ_WRITE;
    }

    /** Whether the peer may write. */
    public boolean allowsWrite() {
        return this == WRITE || this == READ_WRITE;
    }
}
