package smbdirect.api.rdma;

/**
 * The status of a work completion (the verbs {@code ibv_wc_status} values that matter). Every
 * status except {@link #SUCCESS} means the queue pair is in error and the connection is lost.
 */
public enum CompletionStatus {
    /** Completed. */
    SUCCESS,
    /** Not executed because the queue pair went to the error state (disconnect, earlier error). */
    FLUSHED,
    /** A receive was shorter than the message that arrived, or a local length was invalid. */
    LOCAL_LENGTH_ERROR,
    /** A local buffer was not registered, not valid, or lacks the access. */
    LOCAL_PROTECTION_ERROR,
    /** The peer had no receive posted for a Send (receiver not ready, RNR retry exceeded). */
    RECEIVER_NOT_READY,
    /**
     * The peer refused the request as invalid: for a Send its posted receive was too short; for a Send
     * with Invalidate also a token it cannot invalidate.
     */
    REMOTE_INVALID_REQUEST,
    /** The peer's memory region rejected an RDMA access (token, access right or bounds). */
    REMOTE_ACCESS_ERROR,
    /** The peer stopped answering (transport retries exceeded). */
    TRANSPORT_RETRY_EXCEEDED,
    /** Any other failure. */
    GENERAL_ERROR
}
