package smbdirect.api.dto;

import org.osgi.dto.DTO;

/** A listening endpoint. */
public class ListenerDTO extends DTO {
    /** The configured name (factory configuration), or {@code null} for API-opened listeners. */
    public String name;
    /** The bound address as host:port. */
    public String address;
    /** The provider it listens on, or {@code null} while waiting for one. */
    public String provider;
    /** OPEN, WAITING (no provider), FAILED or CLOSED. */
    public String state;
    /** Why it is FAILED or WAITING, if so. */
    public String stateDetail;
    /** Connection requests that arrived. */
    public long connectRequests;
    /** Connections that negotiated and the accept handler took. */
    public long accepted;
    /**
     * Connections that negotiated but the accept handler declined (returned {@code null} or threw);
     * each was closed.
     *
     * @since 1.2
     */
    public long declined;
    /** Connections refused before negotiation (caps, memory budget, reject). */
    public long refused;
    /** Negotiations that failed (violation, timeout). */
    public long negotiationFailures;
    /** Connections currently negotiating. */
    public int negotiating;
    /** Live connections accepted by this listener. */
    public int connections;
    /**
     * The last events of this listener (at most 16), newest first: accepted and declined
     * connections, refused requests and failed negotiations. An array (OSGi DTO rules):
     * {@code events[0]} is the newest, {@code events.length} their number.
     *
     * @since 1.1
     */
    public ListenerEventDTO[] events;
    /**
     * Counters that only go up: the connections this listener accepted, on every provider it listened on.
     *
     * @since 1.4
     */
    public CountersDTO counters;
}
