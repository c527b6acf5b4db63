package smbdirect.api;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ProviderType;

import smbdirect.api.dto.ConnectionDTO;

/**
 * One negotiated SMB Direct connection, in either role.
 *
 * <p>Thread-safe: every method may be called from any thread, including from inside this
 * connection's callbacks. Operations are executed on the connection's serial context in the order
 * they were issued by one thread: messages sent by one thread leave in the order of the
 * {@code send} calls and are never interleaved with each other's fragments.
 */
@ProviderType
public interface SmbDirectConnection {

    /** A transport-unique, stable identifier (also used in logs, DTOs and Gogo commands). */
    long id();

    /** The local address of the RDMA connection. */
    InetSocketAddress localAddress();

    /** The peer's address. */
    InetSocketAddress peerAddress();

    /** The name of the RDMA provider this connection runs on ({@code mock}, {@code verbs}, ...). */
    String providerName();

    /** Whether this side connected (ACTIVE) or accepted (PASSIVE) the connection. */
    boolean isInitiator();

    /** Whether the connection is still usable (not closing or closed). */
    boolean isOpen();

    /**
     * Sends one upper-layer message (3.1.4.2). The message is fragmented into Data Transfer
     * messages of at most the negotiated MaxSendSize (3.1.5.4), queued behind earlier messages
     * and sent as Send Credits allow (3.1.5.1).
     *
     * <p>A message longer than the peer's MaxFragmentedSize is refused locally: nothing is sent and
     * {@code completion} is called with a {@link SmbDirectException} of kind
     * {@link SmbDirectException.Kind#MESSAGE_TOO_LARGE} (R-3.1.4.2-03). Zero-length messages are
     * refused likewise ({@link SmbDirectException.Kind#INVALID_ARGUMENT}).
     *
     * @param message the bytes between position and limit; owned by the transport until
     *     {@code completion} is called (do not modify it before), its position and limit are not
     *     changed
     * @param completion told once of the outcome
     */
    void send(ByteBuffer message, SendCompletion completion);

    /**
     * Like {@link #send(ByteBuffer, SendCompletion)}, and asks the peer's RDMA provider to
     * invalidate {@code remoteToken} when the message arrives (Send with Invalidate on exactly one
     * fragment, 3.1.5.4, 3.1.5.1). When the provider cannot send with invalidate, the token is
     * dropped as 3.1.5.1 allows (R-3.1.5.1-14) and the peer is left to invalidate it itself;
     * {@link ConnectionParameters#sendWithInvalidate()} tells which applies.
     *
     * @param remoteToken the peer's token (STag) to invalidate, an unsigned 32-bit value
     */
    void sendWithInvalidate(ByteBuffer message, int remoteToken, SendCompletion completion);

    /**
     * Convenience form of {@link #send(ByteBuffer, SendCompletion)} returning a stage (allocates;
     * use the callback form on hot paths).
     */
    default CompletionStage<Void> send(ByteBuffer message) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        send(message, (m, failure) -> {
            if (failure == null) {
                result.complete(null);
            } else {
                result.completeExceptionally(failure);
            }
        });
        return result;
    }

    /**
     * Registers {@code buffer} with the RDMA provider for this connection only (3.1.4.3), granting
     * the peer exactly {@code access}. The result carries the Buffer Descriptor V1 list to hand to
     * the peer (covering the whole buffer, in buffer order). A registration with
     * {@link RemoteAccess#LOCAL_ONLY} is local only: it can be the source or destination of
     * {@link #rdmaWrite} and {@link #rdmaRead} and exposes nothing.
     *
     * <p>On failure nothing of the buffer stays remotely accessible (R-3.1.4.3-06) and the stage
     * completes exceptionally. Registrations end with the connection at the latest.
     *
     * @param buffer a direct buffer; the bytes between position and limit are registered and
     *     belong to the transport and the peer until the registration is deregistered
     */
    CompletionStage<RegisteredBuffer> register(ByteBuffer buffer, RemoteAccess access);

    /**
     * RDMA Write (3.1.4.5): writes {@code length} bytes of {@code source}, starting at
     * {@code sourceOffset}, into the peer's buffer described by {@code remote}, starting
     * {@code remoteOffset} bytes into it. The descriptors are sliced as 3.1.4.5 describes; the
     * transfer is bounded by the negotiated MaxReadWriteSize.
     *
     * @param source a local registration of this connection
     * @param remote the peer's Buffer Descriptor V1 list, as received from the peer
     * @param completion told once of the outcome
     */
    void rdmaWrite(RegisteredBuffer source, int sourceOffset, int length,
            List<BufferDescriptor> remote, long remoteOffset, RdmaCompletionHandler completion);

    /**
     * RDMA Read (3.1.4.6): reads {@code length} bytes from the peer's buffer described by
     * {@code remote}, starting {@code remoteOffset} bytes into it, into {@code destination} at
     * {@code destinationOffset}.
     */
    void rdmaRead(RegisteredBuffer destination, int destinationOffset, int length,
            List<BufferDescriptor> remote, long remoteOffset, RdmaCompletionHandler completion);

    /**
     * The connection's negotiated parameters (3.1.4.7). Fixed after negotiation except the timer
     * values, which follow the transport's configuration.
     */
    ConnectionParameters parameters();

    /** A snapshot of the connection's runtime state and counters. */
    ConnectionDTO getConnectionDTO();

    /**
     * Closes the connection: queued and in-flight sends fail, registrations are invalidated and
     * released, the peer is disconnected, and the handler's
     * {@link ConnectionHandler#onDisconnected} runs with {@link CloseReason.Kind#LOCAL_CLOSE}
     * (unless the connection had already closed for another reason). Idempotent.
     *
     * @return completes when the connection is fully released
     */
    CompletionStage<Void> close();
}
