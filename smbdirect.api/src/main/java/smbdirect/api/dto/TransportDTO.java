package smbdirect.api.dto;

import org.osgi.dto.DTO;

/** A snapshot of the whole transport. */
public class TransportDTO extends DTO {
    /** Providers the transport knows, best (selected) first. */
    public ProviderDTO[] providers;
    /** Open listeners. */
    public ListenerDTO[] listeners;
    /** Live connections (negotiating, established or closing). */
    public ConnectionDTO[] connections;
    /** Recently closed connections, newest first (a bounded history for diagnosis). */
    public ConnectionDTO[] recentlyClosed;
    /** Negotiations that failed since start (both roles). */
    public long negotiationFailures;
    /** The last negotiation failure's reason, or {@code null}. */
    public String lastNegotiationFailure;
    /** The settings new connections negotiate with (attribute name = value). */
    public SettingsDTO settings;
}
