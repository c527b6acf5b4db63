package smbdirect.api.rdma;

import java.nio.ByteBuffer;

/**
 * What an endpoint proposes when it connects or accepts.
 *
 * @param privateData connection private data (at most 56 bytes for connect and 196 for accept on
 *     InfiniBand; read-only view, may be empty)
 * @param inboundReadDepth IRD offered (responder resources), at least 1
 * @param outboundReadDepth ORD offered (initiator depth), at least 1
 */
public record ConnectParameters(ByteBuffer privateData, int inboundReadDepth, int outboundReadDepth) {
    public ConnectParameters {
        privateData = privateData == null ? ByteBuffer.allocate(0) : privateData.asReadOnlyBuffer();
        if (inboundReadDepth < 1 || outboundReadDepth < 1) {
            throw new IllegalArgumentException("IRD and ORD must be positive: IRD " + inboundReadDepth
                    + ", ORD " + outboundReadDepth);
        }
    }
}
