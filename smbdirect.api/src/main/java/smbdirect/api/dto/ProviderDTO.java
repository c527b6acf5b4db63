package smbdirect.api.dto;

import org.osgi.dto.DTO;

/** An RDMA provider as the transport sees it. */
public class ProviderDTO extends DTO {
    /** The provider's name ({@code mock}, {@code verbs}, ...). */
    public String name;
    /** iWARP, InfiniBand or RoCE. */
    public String transportType;
    /** The service ranking. */
    public int ranking;
    /** Whether new connections and listeners use this provider. */
    public boolean selected;
    /** Live connections on it. */
    public int connections;
    /** Open listeners on it. */
    public int listeners;
    /** The provider's capabilities, as text. */
    public String capabilities;
    /**
     * The provider's own settings in words ({@code RdmaProvider.describeSettings()}), or
     * {@code null} when it reports none.
     *
     * @since 1.1
     */
    public String settings;
    /**
     * The provider's own counters in words ({@code RdmaProvider.describeStatistics()}), or
     * {@code null} when it keeps none.
     *
     * @since 1.1
     */
    public String statistics;
    /**
     * Counters that only go up: this provider's connections (its predecessors under the same name included).
     *
     * @since 1.4
     */
    public CountersDTO counters;
}
