package smbdirect.api;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ProviderType;

import smbdirect.api.dto.TransportDTO;

/**
 * The SMB Direct transport service: opens listeners (passive role, [MS-SMBD] 3.1.7.2) and
 * connections to peers (active role, 3.1.4.1) over the RDMA provider the transport is currently
 * bound to.
 *
 * <p>Thread-safe: all methods may be called from any thread. The service stays registered while
 * RDMA providers come and go; operations issued while no provider is available fail with a
 * {@link SmbDirectException} whose reason is {@link CloseReason.Kind#PROVIDER_GONE}.
 */
@ProviderType
public interface SmbDirectTransport {

    /**
     * Starts listening for incoming SMB Direct connections.
     *
     * <p>Each incoming connection is negotiated by the transport (the peer's Negotiate Request is
     * checked and answered, 3.1.5.6); only connections that negotiated successfully are offered to
     * {@code acceptHandler}, once each, on the connection's serial context. Connections whose
     * negotiation fails are closed without involving the upper layer (and counted in the
     * listener's DTO; {@link #listen(InetSocketAddress, AcceptHandler, ListenerEventHandler)} also
     * reports them, and refusals, as typed events).
     *
     * @param bindAddress the local address and port; port 0 chooses a free port
     * @param acceptHandler called for each negotiated connection; returns the handler for that
     *     connection's messages
     * @return the listener, already bound
     * @throws SmbDirectException when no provider is available or the address cannot be bound
     */
    SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler) throws SmbDirectException;

    /**
     * Starts listening as {@link #listen(InetSocketAddress, AcceptHandler)} does, and tells
     * {@code events} of every connection this listener accepts, every connection request it refuses
     * (connection caps, receive-buffer budget) and every negotiation that fails (a bad Negotiate
     * Request, the Negotiation Timer) as a typed {@link ListenerEvent}. {@link ListenerEventHandler}
     * whiteboard services are told as well.
     *
     * @param bindAddress the local address and port; port 0 chooses a free port
     * @param acceptHandler called for each negotiated connection
     * @param events told of this listener's events; {@code null} for none
     * @return the listener, already bound
     * @throws SmbDirectException when no provider is available or the address cannot be bound
     * @since 1.1
     */
    SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler, ListenerEventHandler events)
            throws SmbDirectException;

    /**
     * Connects to a peer and negotiates (3.1.4.1, 3.1.5.2, 3.1.5.7).
     *
     * <p>The returned stage completes with the connection once negotiation succeeded, or
     * exceptionally with a {@link SmbDirectException} naming the reason (connection refused,
     * timeout, negotiation failure with the rule and value). {@code timeout} bounds connect and
     * negotiation together (the Negotiation Timer of 3.1.4.1; Windows uses 120 s).
     *
     * @param peer the peer's address
     * @param timeout bound for connect plus negotiation, positive
     * @param handler receives the connection's messages and its disconnect notification; no
     *     callback happens before the returned stage completed successfully
     */
    CompletionStage<SmbDirectConnection> connect(InetSocketAddress peer, Duration timeout, ConnectionHandler handler);

    /** A snapshot of the transport's runtime state: providers, listeners and live connections. */
    TransportDTO getTransportDTO();

    /**
     * This transport with new listeners and connections on one RDMA provider instead of the
     * selected one: an SMB server that listens on port 5445 over iWARP and on port 445 over an
     * InfiniBand or RoCE device ([MS-SMBD] 2.1), or a test that measures one provider.
     *
     * <p>A listener opened through the view stays on that provider: when the provider leaves it
     * waits and opens again on the provider's return; it never moves to another one. A connection
     * made through the view runs on that provider until it closes or the provider leaves (then it is
     * drained and closed with {@link CloseReason.Kind#PROVIDER_REPLACED}). {@link #getTransportDTO()} of the view is the whole
     * transport's.
     *
     * @param providerName the provider's name, its {@code smbdirect.provider} service property
     *     ({@code mock}, {@code verbs}, {@code iwarp}, ...)
     * @return the view; its {@code listen} throws and its {@code connect} completes exceptionally
     *     with {@link SmbDirectException.Kind#NO_PROVIDER} naming the provider while no provider of
     *     that name is bound
     * @since 1.1
     */
    SmbDirectTransport onProvider(String providerName);
}
