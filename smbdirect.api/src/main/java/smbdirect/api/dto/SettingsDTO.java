package smbdirect.api.dto;

import org.osgi.dto.DTO;

/** The transport settings in force (the ADM variables they feed are named in each field). */
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
    /** Connection.KeepaliveInterval in milliseconds. */
    public long keepaliveIntervalMillis;
    /** Wait for any message after a keepalive, in milliseconds. */
    public long keepaliveResponseTimeoutMillis;
    /** Active Negotiation Timer, in milliseconds. */
    public long activeNegotiationTimeoutMillis;
    /** Passive Negotiation Timer, in milliseconds. */
    public long passiveNegotiationTimeoutMillis;
    /** Send-credit-grant timeout in milliseconds, 0 = disabled. */
    public long creditGrantTimeoutMillis;
    /** Refill receives when the peer holds fewer than this fraction of its target. */
    public double creditRefillFraction;
}
