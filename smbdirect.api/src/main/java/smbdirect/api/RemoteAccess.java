package smbdirect.api;

/**
 * What the peer may do with a registered buffer (3.1.4.3). Least access is the rule (RFC 5042):
 * register a buffer the peer reads from with {@link #READ}, one it writes into with
 * {@link #WRITE}.
 */
public enum RemoteAccess {
    /** Local use only (source or destination of our own RDMA operations); not exposed. */
    NONE,
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
