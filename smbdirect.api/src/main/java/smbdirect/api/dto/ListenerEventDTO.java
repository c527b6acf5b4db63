package smbdirect.api.dto;

import org.osgi.dto.DTO;

/**
 * One event of a listener ({@link smbdirect.api.ListenerEvent}) as plain data, or, in
 * {@link TransportDTO#negotiationFailureEvents}, a failed negotiation of either role.
 */
public class ListenerEventDTO extends DTO {
    /**
     * ACCEPTED, DECLINED, REFUSED_CAP, REFUSED_BUDGET, REFUSED_CLOSED, NEGOTIATION_TIMEOUT or
     * NEGOTIATION_FAILED ({@link smbdirect.api.ListenerEvent.Kind}).
     */
    public String kind;
    /** ACTIVE or PASSIVE: the local role (PASSIVE for every event of a listener). */
    public String role;
    /** The listener's address as host:port, or {@code null} for an outgoing connection. */
    public String listener;
    /** The peer's address as host:port, or {@code null} when not known. */
    public String peerAddress;
    /** The RDMA provider. */
    public String provider;
    /** The connection id, or 0 when refused before a connection existed. */
    public long connectionId;
    /** The {@link smbdirect.api.CloseReason.Kind} name, or {@code null} for ACCEPTED. */
    public String reasonKind;
    /**
     * The rule behind it ({@link smbdirect.api.CloseReason#rule()}: {@code R-...} of [MS-SMBD] or
     * {@code A-...}, e.g. {@code R-3.1.5.6-06}), or {@code null}.
     */
    public String rule;
    /** The reason's detail naming the offending value or limit, or {@code null}. */
    public String detail;
    /** When it happened, milliseconds since the epoch on the transport's clock. */
    public long timestampMillis;
}
