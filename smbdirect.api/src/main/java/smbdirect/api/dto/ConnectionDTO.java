package smbdirect.api.dto;

import org.osgi.dto.DTO;

/**
 * One connection, with the [MS-SMBD] ADM variables (3.1.1.1) it holds and its counters.
 */
public class ConnectionDTO extends DTO {
    /** The connection id. */
    public long id;
    /** ACTIVE (we connected) or PASSIVE (we accepted): the role the connection started in. */
    public String role;
    /** CONNECTING, NEGOTIATING, ESTABLISHED, CLOSING or CLOSED. */
    public String state;
    /** The provider name. */
    public String provider;
    /**
     * What the RDMA provider says of this connection on the wire
     * ({@code RdmaEndpoint.describeConnection()}, e.g. the FPDU size and CRC of a software iWARP
     * connection), or {@code null}.
     *
     * @since 1.3
     */
    public String providerDetail;
    /** Local address as host:port. */
    public String localAddress;
    /** Peer address as host:port. */
    public String peerAddress;
    /** Milliseconds since the epoch when the connection was created. */
    public long createdMillis;

    /** Connection.Protocol (0x0100 once negotiated). */
    public int protocol;
    /** Connection.MaxSendSize. */
    public int maxSendSize;
    /** Connection.MaxReceiveSize. */
    public int maxReceiveSize;
    /** Connection.MaxFragmentedSendSize (unsigned). */
    public long maxFragmentedSendSize;
    /** Connection.MaxFragmentedRecvSize. */
    public int maxFragmentedRecvSize;
    /** Connection.MaxReadWriteSize. */
    public int maxReadWriteSize;
    /** Connection.KeepaliveInterval in milliseconds. */
    public long keepaliveIntervalMillis;
    /** IRD in use. */
    public int inboundReadDepth;
    /** ORD in use. */
    public int outboundReadDepth;

    /** Connection.SendCredits: credits we hold. */
    public int sendCredits;
    /** Connection.SendCreditTarget: credits we ask for. */
    public int sendCreditTarget;
    /** Connection.ReceiveCredits: receives posted. */
    public int receiveCredits;
    /** Receives posted but not yet granted to the peer. */
    public int receiveCreditsUngranted;
    /** Credits the peer holds (granted, not yet consumed). */
    public int peerCredits;
    /** Connection.ReceiveCreditTarget: the peer's latest CreditsRequested. */
    public int receiveCreditTarget;
    /** Connection.ReceiveCreditMax. */
    public int receiveCreditMax;
    /** Connection.KeepaliveRequested: NONE, PENDING or SENT. */
    public String keepaliveRequested;
    /** Messages waiting in Connection.SendQueue. */
    public int sendQueueDepth;
    /** RDMA Reads and Writes in flight. */
    public int rdmaInFlight;
    /** Registered buffers of the upper layer. */
    public int registrations;

    /** Upper-layer messages sent completely. */
    public long messagesSent;
    /** Upper-layer messages received (reassembled). */
    public long messagesReceived;
    /** Upper-layer payload bytes sent. */
    public long bytesSent;
    /** Upper-layer payload bytes received. */
    public long bytesReceived;
    /** Data Transfer messages (fragments, including empty ones) sent. */
    public long fragmentsSent;
    /** Data Transfer messages received. */
    public long fragmentsReceived;
    /** Keepalives (RESPONSE_REQUESTED) sent. */
    public long keepalivesSent;
    /** Keepalives received. */
    public long keepalivesReceived;
    /** Empty credit-grant messages sent. */
    public long creditGrantsSent;
    /** Times sending stopped for lack of Send Credits. */
    public long creditStalls;
    /** RDMA Reads completed. */
    public long rdmaReads;
    /** RDMA Writes completed. */
    public long rdmaWrites;
    /** Bytes moved by RDMA Read and Write. */
    public long rdmaBytes;

    /** Why the connection closed ({@code CloseReason} text), {@code null} while open. */
    public String closeReason;
    /** Milliseconds since the epoch when it closed, 0 while open. */
    public long closedMillis;
}
