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
 * @param sendWithInvalidate whether Send with Invalidate is supported
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
        boolean sendWithInvalidate) {
}
