package smbdirect.api.rdma;

import java.net.InetSocketAddress;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An RDMA stack (a device and its connection manager) that the SMB Direct engine runs over.
 * Thread-safe.
 */
@ProviderType
public interface RdmaProvider {

    /** Service property naming the provider ({@code mock}, {@code verbs}, ...). */
    String PROVIDER_NAME = "smbdirect.provider";

    /** Service property carrying {@link #transportType()} by name. */
    String TRANSPORT_TYPE = "smbdirect.provider.transport";

    /** The provider's name, equal to its {@link #PROVIDER_NAME} service property. */
    String name();

    /** The transport the device speaks; the engine adds the IRD/ORD private-data header on iWARP. */
    TransportType transportType();

    /** What the device supports. */
    RdmaCapabilities capabilities();

    /**
     * Starts listening (RDMA CM listen).
     *
     * @param bindAddress local address and port; port 0 picks a free one
     * @param handler told of each connection request
     * @throws RdmaException when the address cannot be bound or the device is unusable
     */
    RdmaListener listen(InetSocketAddress bindAddress, RdmaListenHandler handler) throws RdmaException;

    /**
     * Creates an endpoint (queue pair) for an active connection. Receives may be posted and memory
     * registered before {@link RdmaEndpoint#connect} is called (3.1.4.1 posts the first receive
     * before connecting).
     *
     * @throws RdmaException when the device refuses the queue pair
     */
    RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException;

    /**
     * The provider's own settings in words with units, for operators (the runtime DTO, the shell,
     * the Web Console): what {@link #capabilities()} does not say, such as where it may listen,
     * e.g. "listens only on 127.0.0.1:5445; MPA CRC32C asked for; FPDUs sized to each connection's
     * TCP MSS". Called from any thread; must not block.
     *
     * @return one line of text, or {@code null} (the default) when there is nothing to add
     * @since 1.1
     */
    default String describeSettings() {
        return null;
    }

    /**
     * The provider's own counters in words, for operators, e.g. "TCP connections 3 of at most
     * 1,024, Terminates sent 0 / received 0". Called from any thread, about once a second while
     * someone watches; must not block.
     *
     * @return one line of text, or {@code null} (the default) when the provider keeps no counters
     *     of its own
     * @since 1.1
     */
    default String describeStatistics() {
        return null;
    }
}
