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
    /**
     * The last negotiation failure's reason as text, or {@code null}.
     *
     * @deprecated use {@link #negotiationFailureEvents} (structured: role, peer, provider, reason
     *     kind, rule and detail, time); this field still holds the newest of them as text;
     *     removed in smbdirect 2.0.0
     */
    @Deprecated(since = "1.1", forRemoval = true)
    public String lastNegotiationFailure;
    /**
     * The last negotiation failures (at most 16, both roles), newest first.
     *
     * @since 1.1
     */
    public ListenerEventDTO[] negotiationFailureEvents;
    /** The settings new connections negotiate with (attribute name = value). */
    public SettingsDTO settings;
}
