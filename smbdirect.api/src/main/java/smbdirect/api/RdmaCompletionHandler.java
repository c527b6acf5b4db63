package smbdirect.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told once of the outcome of an RDMA Read or Write issued through
 * {@link SmbDirectConnection#rdmaRead} or {@link SmbDirectConnection#rdmaWrite}: a callback of the
 * upper layer (the record of a completed work request, one level down, is the provider SPI's
 * {@link smbdirect.api.rdma.WorkCompletion}). Called on the connection's serial context; must not
 * block. If it throws, the connection closes with {@link CloseReason.Kind#HANDLER_FAILED} (see
 * {@link ConnectionHandler}, "A handler that throws").
 *
 * @since 1.3
 */
@ConsumerType
@FunctionalInterface
public interface RdmaCompletionHandler {

    /**
     * @param bytes the number of bytes transferred (all of the requested length on success)
     * @param failure {@code null} on success, otherwise the reason; an RDMA failure is fatal for
     *     the connection (3.1.4.2, provider errors end the connection)
     */
    void rdmaComplete(long bytes, Throwable failure);
}
