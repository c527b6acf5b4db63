package smbdirect.api.dto;

import org.osgi.dto.DTO;

/**
 * The transport settings in force (the ADM variables they feed are named in each field). Every
 * field is named as the configuration attribute of {@code smbdirect.transport} it shows, in the
 * attribute's unit ({@code provider_target} is {@code provider.target}, named as Declarative
 * Services maps a name with a dot); the JSON status and JMX show these names. The fields in
 * milliseconds that some attributes in seconds had are deprecated: they hold the same values.
 */
public class SettingsDTO extends DTO {
    /** Connection.ReceiveCreditMax. */
    public int receiveCreditMax;
    /** Connection.SendCreditTarget. */
    public int sendCreditTarget;
    /** Connection.MaxSendSize before negotiation. */
    public int maxSendSize;
    /** Connection.MaxReceiveSize before negotiation. */
    public int maxReceiveSize;
    /** Connection.MaxFragmentedRecvSize. */
    public int maxFragmentedRecvSize;
    /** Connection.MaxReadWriteSize (passive) or its cap (active). */
    public int maxReadWriteSize;
    /** Send-credit-grant timeout in milliseconds, 0 = disabled. */
    public long creditGrantTimeoutMillis;
    /** Refill receives when the peer holds fewer than this fraction of its target. */
    public double creditRefillFraction;
    /** Connection.KeepaliveInterval in seconds (attribute keepaliveIntervalSeconds). */
    public long keepaliveIntervalSeconds;
    /** Wait for any message after a keepalive, in seconds. */
    public long keepaliveResponseTimeoutSeconds;
    /** Active Negotiation Timer, in seconds. */
    public long activeNegotiationTimeoutSeconds;
    /** Passive Negotiation Timer, in seconds. */
    public long passiveNegotiationTimeoutSeconds;
    /** IRD offered: RDMA Reads the peer may have outstanding against this side. */
    public int inboundReadDepth;
    /** ORD offered: RDMA Reads this side may have outstanding. */
    public int outboundReadDepth;
    /** Live connections one listener keeps. */
    public int maxConnectionsPerListener;
    /** Connections one listener keeps in negotiation at once. */
    public int maxNegotiatingPerListener;
    /** MiB of posted receive buffers the whole transport may hold. */
    public long receiveBufferBudgetMB;
    /**
     * Seconds an established connection is given to finish what is in flight when the transport
     * stops or its RDMA provider is withdrawn, before it is closed; 0 closes at once.
     *
     * @since 2.0
     */
    public long drainTimeoutSeconds;
    /**
     * The filter selecting the RDMA provider of new connections and listeners (attribute
     * {@code provider.target}); null where the transport is built over one provider.
     */
    public String provider_target;
}
