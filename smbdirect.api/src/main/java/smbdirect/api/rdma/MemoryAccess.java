package smbdirect.api.rdma;

/** Access rights of a memory registration (local read is implied). */
public enum MemoryAccess {
    /** The local device may write into the region (receives, RDMA Read targets). */
    LOCAL_WRITE,
    /** The peer may RDMA Read the region. */
    REMOTE_READ,
    /** The peer may RDMA Write the region (requires {@link #LOCAL_WRITE} on real verbs). */
    REMOTE_WRITE
}
