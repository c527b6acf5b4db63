package smbdirect.api.rdma;

/** The kinds of work request. */
public enum WorkRequestType {
    /** A posted receive (the peer's Send landed, or it was flushed). */
    RECEIVE,
    /** A Send, with or without invalidate. */
    SEND,
    /** An RDMA Write. */
    RDMA_WRITE,
    /** An RDMA Read. */
    RDMA_READ,
    /** A local invalidate. */
    LOCAL_INVALIDATE
}
