package smbdirect.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told once of the outcome of an RDMA Read or Write issued through
 * {@link SmbDirectConnection#rdmaRead} or {@link SmbDirectConnection#rdmaWrite}.
 * Called on the connection's serial context; must not block.
 */
@ConsumerType
@FunctionalInterface
public interface RdmaCompletion {

    /**
     * @param bytes the number of bytes transferred (all of the requested length on success)
     * @param failure {@code null} on success, otherwise the reason; an RDMA failure is fatal for
     *     the connection (3.1.4.2, provider errors end the connection)
     */
    void rdmaComplete(long bytes, Throwable failure);
}
