package smbdirect.api.dto;

import java.util.Map;

import org.osgi.dto.DTO;

/**
 * Counters that only go up, for monitoring systems: of an RDMA provider ({@link ProviderDTO#counters})
 * or a listener ({@link ListenerDTO#counters}), since the transport started. Connections that closed
 * stay counted; the traffic of live connections is added as it happens. A provider's counters carry
 * on when the provider is replaced under the same name (a changed configuration, a hot swap), a
 * listener's when it follows a hot swap to another provider.
 *
 * @since 1.4
 */
public class CountersDTO extends DTO {
    /** Connections that negotiated (reached ESTABLISHED). */
    public long connectionsOpened;
    /** Connections that closed, whatever their state (failed negotiations included). */
    public long connectionsClosed;
    /**
     * Closed connections by {@link smbdirect.api.CloseReason.Kind} name ({@code PEER_DISCONNECT},
     * {@code PROTOCOL_VIOLATION}, ...): only the kinds that happened.
     */
    public Map<String, Long> closedByReason;
    /** Connections closed for a protocol violation ({@code PROTOCOL_VIOLATION}, {@code NEGOTIATION_FAILED}). */
    public long protocolViolations;
    /**
     * Protocol violations by the rule their close reason names ({@code R-3.1.5.8-03}, {@code A-30};
     * {@code none} when it names none): only the rules that were broken.
     */
    public Map<String, Long> violationsByRule;
    /** Upper-layer messages sent completely. */
    public long messagesSent;
    /** Upper-layer messages received (reassembled). */
    public long messagesReceived;
    /** Upper-layer payload bytes sent. */
    public long bytesSent;
    /** Upper-layer payload bytes received. */
    public long bytesReceived;
    /** RDMA Reads completed. */
    public long rdmaReads;
    /** RDMA Writes completed. */
    public long rdmaWrites;
    /** Bytes moved by RDMA Read and Write. */
    public long rdmaBytes;
    /** Times sending stopped for lack of Send Credits. */
    public long creditStalls;
}
