package smbdirect.api.rdma;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Set;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A reliable-connected queue pair with its connection-manager identifier and its memory
 * registrations.
 *
 * <p>Thread-safe, but the engine calls it from one serial context per endpoint. The {@code post}
 * methods do not block; their outcome arrives as a {@link WorkCompletion} carrying the caller's
 * {@code wrId}. A {@code post} on an endpoint that is not connected or already broken throws
 * {@link RdmaException}; a request that was accepted by a {@code post} always completes.
 */
@ProviderType
public interface RdmaEndpoint {

    /** Active side: connect to {@code peer}; the outcome arrives as
     * {@link RdmaEndpointHandler#onEstablished} or {@link RdmaEndpointHandler#onDisconnected}. */
    void connect(InetSocketAddress peer, ConnectParameters parameters) throws RdmaException;

    /** Passive side: accept the request this endpoint was created from. */
    void accept(ConnectParameters parameters) throws RdmaException;

    /** Local address, once connected (or the request's local address on the passive side). */
    InetSocketAddress localAddress();

    /** Peer address, once known. */
    InetSocketAddress peerAddress();

    /** IRD in effect once established (RDMA Reads the peer may have outstanding against us). */
    int inboundReadDepth();

    /** ORD in effect once established (RDMA Reads we may have outstanding). */
    int outboundReadDepth();

    /** The provider's capabilities for this endpoint (after any limits of the device). */
    RdmaCapabilities capabilities();

    /**
     * What this connection is like on the wire, in words with units, for operators and measurements
     * (the runtime DTO, the shell, perf): what the provider chose for it that the SPI does not
     * otherwise show, e.g. "CRC32C on, FPDUs of 1,448 bytes (the path's TCP MSS), IRD 16, ORD 16".
     * Called from any thread; must not block.
     *
     * @return one line of text, or {@code null} (the default) before the connection is established
     *     or when there is nothing to add
     * @since 1.2
     */
    default String describeConnection() {
        return null;
    }

    /**
     * Registers memory for this endpoint only.
     *
     * @param buffer a direct buffer; the bytes between position and limit are registered
     * @param access the rights; local read is always granted
     * @throws RdmaException when the registration fails (nothing is registered then)
     */
    MemoryRegion register(ByteBuffer buffer, Set<MemoryAccess> access) throws RdmaException;

    /**
     * Deregisters a region: afterwards neither the peer nor this endpoint can use its token. Work
     * requests still using the region must have completed.
     *
     * @throws RdmaException when the provider reports a deregistration error
     */
    void deregister(MemoryRegion region) throws RdmaException;

    /** Posts a receive of {@code length} bytes at {@code offset} of {@code region}. */
    void postReceive(MemoryRegion region, int offset, int length, long wrId) throws RdmaException;

    /** Posts a Send of {@code length} bytes at {@code offset} of {@code region}. */
    void postSend(MemoryRegion region, int offset, int length, long wrId) throws RdmaException;

    /**
     * Posts a Send with Invalidate: the peer's region with {@code remoteToken} is invalidated when
     * the message is received, and the peer's receive completion reports the token.
     *
     * @throws RdmaException when the provider does not support it
     *     ({@link RdmaCapabilities#sendWithInvalidate()} is false) or the post fails
     */
    void postSendWithInvalidate(MemoryRegion region, int offset, int length, int remoteToken, long wrId)
            throws RdmaException;

    /** Posts an RDMA Write of {@code length} bytes from the local region to the peer's memory. */
    void postRdmaWrite(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException;

    /** Posts an RDMA Read of {@code length} bytes from the peer's memory into the local region. */
    void postRdmaRead(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException;

    /**
     * Posts a local invalidate of {@code region}'s token: once it completes, the peer can no longer
     * access the region (its deregistration may follow).
     */
    void postLocalInvalidate(MemoryRegion region, long wrId) throws RdmaException;

    /**
     * Starts an orderly disconnect. Outstanding work requests are flushed and then
     * {@link RdmaEndpointHandler#onDisconnected} is called with {@link DisconnectCause#LOCAL}.
     * Idempotent; harmless on an endpoint that never connected (no connect or accept was called):
     * no callback follows, and {@link #close()} releases what was posted.
     */
    void disconnect();

    /**
     * Releases the queue pair and every region still registered on it. Call after
     * {@link RdmaEndpointHandler#onDisconnected}; a provider closing a live endpoint disconnects
     * it first without further callbacks. Idempotent.
     */
    void close();
}
