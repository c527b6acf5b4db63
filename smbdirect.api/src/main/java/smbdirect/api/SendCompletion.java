package smbdirect.api;

import java.nio.ByteBuffer;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told once of the outcome of one {@link SmbDirectConnection#send send}: every message handed to
 * the transport is either delivered to the RDMA provider completely (all its fragments completed
 * successfully) or reported failed; nothing is dropped silently.
 *
 * <p>Called on the connection's serial context; must not block. From this call on the message
 * buffer belongs to the caller again. If it throws, the connection closes with
 * {@link CloseReason.Kind#HANDLER_FAILED} (see {@link ConnectionHandler}, "A handler that throws").
 */
@ConsumerType
@FunctionalInterface
public interface SendCompletion {

    /**
     * @param message the buffer that was passed to send (its position and limit unchanged)
     * @param failure {@code null} on success; otherwise why the message was not (completely)
     *     sent, typically a {@link SmbDirectException} carrying the connection's close reason
     */
    void sendComplete(ByteBuffer message, Throwable failure);
}
