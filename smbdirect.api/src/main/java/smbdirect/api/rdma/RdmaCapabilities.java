package smbdirect.api.rdma;

/**
 * What an RDMA device supports (the verbs {@code ibv_device_attr} values that SMB Direct sizes
 * itself by).
 *
 * @param maxSendWorkRequests send queue depth limit per queue pair
 * @param maxReceiveWorkRequests receive queue depth limit per queue pair
 * @param maxSge scatter/gather entries per work request
 * @param maxInlineData bytes a Send may carry inline
 * @param maxMessageSize largest message (Send, RDMA Read or Write) in bytes
 * @param maxInboundReadDepth largest IRD (max_qp_rd_atom)
 * @param maxOutboundReadDepth largest ORD (max_qp_init_rd_atom)
 * @param maxRegionSize largest single memory registration in bytes
 * @param sendWithInvalidate whether this side can post Send with Invalidate (invalidating a token the
 *     peer handed out for remote invalidation)
 * @param remoteInvalidation whether a peer's Send with Invalidate naming a token of ours invalidates
 *     that memory and the receive completion reports it: only then may an upper layer hand its tokens
 *     out for remote invalidation (an SMB client may ask for SMB2_CHANNEL_RDMA_V1_INVALIDATE). A
 *     device can post Send with Invalidate and still not invalidate its own registrations on
 *     receipt; the verbs provider reports both separately.
 */
public record RdmaCapabilities(
        int maxSendWorkRequests,
        int maxReceiveWorkRequests,
        int maxSge,
        int maxInlineData,
        int maxMessageSize,
        int maxInboundReadDepth,
        int maxOutboundReadDepth,
        long maxRegionSize,
        boolean sendWithInvalidate,
        boolean remoteInvalidation) {

    /**
     * Capabilities of a provider that invalidates its own registrations on a peer's Send with
     * Invalidate exactly when it can post one ({@code remoteInvalidation} equal to
     * {@code sendWithInvalidate}), as the in-JVM providers do.
     */
    public RdmaCapabilities(int maxSendWorkRequests, int maxReceiveWorkRequests, int maxSge, int maxInlineData,
            int maxMessageSize, int maxInboundReadDepth, int maxOutboundReadDepth, long maxRegionSize,
            boolean sendWithInvalidate) {
        this(maxSendWorkRequests, maxReceiveWorkRequests, maxSge, maxInlineData, maxMessageSize, maxInboundReadDepth,
                maxOutboundReadDepth, maxRegionSize, sendWithInvalidate, sendWithInvalidate);
    }
}
