package smbdirect.rdma.mock;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.osgi.annotation.versioning.ProviderType;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;

/**
 * The far end of one connection, scripted by a test at the message level: it connects or
 * accepts, posts receives, sends arbitrary bytes, registers memory, issues RDMA Read and Write
 * and records everything it receives. It uses the provider SPI like any consumer, so every rule of
 * the fabric applies to it too.
 *
 * <p>Receives: each is its own region of {@link #receiveSize(int)} bytes; {@code initialReceives}
 * are posted before connecting or accepting; a consumed receive is posted again unless
 * {@link #autoRepost(boolean)} is off. Sends: each message is copied into a region of its own,
 * deregistered when its completion arrives.
 *
 * <p>Thread-safe. Configuration methods must be called before connecting or listening.
 * Accessors return snapshots and never block. The {@code await} methods block in
 * {@link DeliveryMode#INLINE} and {@link DeliveryMode#THREADED}; in
 * {@link DeliveryMode#DETERMINISTIC} they run the fabric until idle and check at once.
 */
@ProviderType
public interface RawPeer extends AutoCloseable {

    /** The device this peer runs on. */
    MockProvider provider();

    /** Size of every receive posted from now on (default 8192). */
    RawPeer receiveSize(int bytes);

    /** Receives posted before connecting or accepting (default 16). */
    RawPeer initialReceives(int count);

    /** Whether a consumed receive is posted again (default true). */
    RawPeer autoRepost(boolean repost);

    /** Queue depths of the endpoint (default 256 / 256). */
    RawPeer queueDepths(int sendQueueDepth, int receiveQueueDepth);

    /** IRD and ORD offered when connecting or accepting (default 16 / 16). */
    RawPeer readDepths(int inboundReadDepth, int outboundReadDepth);

    /** Private data sent with an accept (default empty). */
    RawPeer acceptPrivateData(byte[] privateData);

    /** Reject incoming requests with {@code privateData} instead of accepting (null: accept). */
    RawPeer rejectWith(byte[] privateData);

    /** Connects to {@code remote} with {@code privateData} (may be empty). */
    void connect(InetSocketAddress remote, byte[] privateData) throws RdmaException;

    /**
     * Listens at {@code bind}; the first request is accepted (or rejected, see
     * {@link #rejectWith(byte[])}), later ones are rejected while a connection exists.
     *
     * @return the bound address with the actual port
     */
    InetSocketAddress listen(InetSocketAddress bind) throws RdmaException;

    /** The endpoint of the current connection, or null. */
    MockEndpoint endpoint();

    /** Whether the connection is established and not ended. */
    boolean isConnected();

    /** Private data of the last connection request received (listening side), or null. */
    byte[] requestPrivateData();

    /** Private data of the peer's accept (connecting side), or null before establishment. */
    byte[] peerAcceptPrivateData();

    /** Posts {@code count} more receives of the current size. */
    void postReceives(int count) throws RdmaException;

    /** Sends {@code message} (any length, any content). @return the work request id */
    long send(byte[] message) throws RdmaException;

    /** Sends {@code message} as a Send with Invalidate of the peer's {@code remoteToken}. */
    long sendWithInvalidate(byte[] message, int remoteToken) throws RdmaException;

    /** Registers a new zeroed direct buffer of {@code length} bytes on the current endpoint. */
    MemoryRegion register(int length, Set<MemoryAccess> access) throws RdmaException;

    /** Deregisters a region registered by {@link #register(int, Set)}. */
    void deregister(MemoryRegion region) throws RdmaException;

    /** RDMA Writes {@code data} to the peer's memory. @return the work request id */
    long rdmaWrite(byte[] data, long remoteAddress, int remoteToken) throws RdmaException;

    /** RDMA Reads {@code length} bytes of the peer's memory into {@code local} at {@code offset}. */
    long rdmaRead(MemoryRegion local, int offset, int length, long remoteAddress, int remoteToken)
            throws RdmaException;

    /** Every message received so far, in order. */
    List<RawMessage> messages();

    /** The bytes of every message received so far, in order. */
    List<byte[]> received();

    /** Every completion seen so far (receives included), in order. */
    List<RawCompletion> completions();

    /**
     * Waits until at least {@code count} messages were received.
     *
     * @return all messages received so far
     * @throws AssertionError when they did not arrive within {@code timeout}
     */
    List<RawMessage> awaitMessages(int count, Duration timeout) throws InterruptedException;

    /** Waits for establishment. @throws AssertionError on timeout or when the connection ended */
    void awaitEstablished(Duration timeout) throws InterruptedException;

    /** Waits for onDisconnected. @return the cause @throws AssertionError on timeout */
    DisconnectCause awaitDisconnected(Duration timeout) throws InterruptedException;

    /** The cause given to onDisconnected, or null while the connection lives. */
    DisconnectCause disconnectCause();

    /** The detail given to onDisconnected, or null. */
    String disconnectDetail();

    /** Private data given to onDisconnected (a reject's), or null. */
    byte[] disconnectPrivateData();

    /** Orderly disconnect. */
    void disconnect();

    /** The host vanishes without a disconnect message (see {@link MockEndpoint#crash()}). */
    void crash();

    /** Closes the endpoint and the listener, releasing all regions. Idempotent. */
    @Override
    void close();
}
