package smbdirect.api;

import java.time.Duration;

/**
 * The parameters of a negotiated connection ([MS-SMBD] 3.1.4.7 Query Connection Parameters, plus
 * the values an upper layer needs to plan RDMA and fragmentation).
 *
 * @param maxSendSize largest Data Transfer message this side sends (Connection.MaxSendSize)
 * @param maxFragmentedSendSize largest upper-layer message the peer reassembles (an unsigned 32-bit value)
 *     (Connection.MaxFragmentedSendSize); longer sends are refused
 * @param maxReceiveSize largest Data Transfer message this side accepts (Connection.MaxReceiveSize)
 * @param maxFragmentedReceiveSize largest upper-layer message this side reassembles
 *     (Connection.MaxFragmentedRecvSize)
 * @param maxReadWriteSize largest single RDMA Read or Write (Connection.MaxReadWriteSize)
 * @param keepaliveInterval Connection.KeepaliveInterval
 * @param inboundReadDepth IRD in use: RDMA Reads the peer may have outstanding against us
 * @param outboundReadDepth ORD in use: RDMA Reads we may have outstanding against the peer
 * @param sendWithInvalidate whether {@link SmbDirectConnection#sendWithInvalidate} really
 *     invalidates at the peer (the provider supports Send with Invalidate)
 * @param remoteInvalidation whether the peer's Send with Invalidate naming a token of this side
 *     invalidates it ({@link smbdirect.api.rdma.RdmaCapabilities#remoteInvalidation()}): only then
 *     may the upper layer ask the peer to invalidate its tokens (an SMB client's
 *     SMB2_CHANNEL_RDMA_V1_INVALIDATE); otherwise it invalidates them itself after use
 */
public record ConnectionParameters(
        int maxSendSize,
        long maxFragmentedSendSize,
        int maxReceiveSize,
        int maxFragmentedReceiveSize,
        int maxReadWriteSize,
        Duration keepaliveInterval,
        int inboundReadDepth,
        int outboundReadDepth,
        boolean sendWithInvalidate,
        boolean remoteInvalidation) {

    /** Parameters of a connection whose side does not let the peer invalidate its tokens. */
    public ConnectionParameters(int maxSendSize, long maxFragmentedSendSize, int maxReceiveSize,
            int maxFragmentedReceiveSize, int maxReadWriteSize, Duration keepaliveInterval, int inboundReadDepth,
            int outboundReadDepth, boolean sendWithInvalidate) {
        this(maxSendSize, maxFragmentedSendSize, maxReceiveSize, maxFragmentedReceiveSize, maxReadWriteSize,
                keepaliveInterval, inboundReadDepth, outboundReadDepth, sendWithInvalidate, false);
    }
}
