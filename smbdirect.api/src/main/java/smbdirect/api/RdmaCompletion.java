package smbdirect.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * The former name of {@link RdmaCompletionHandler} (it read as the record of a completion, which
 * is the provider SPI's {@link smbdirect.api.rdma.WorkCompletion}). Code written against it keeps
 * compiling and binaries built against it keep running: {@link SmbDirectConnection} still takes it,
 * through deprecated overloads that hand it on as an {@code RdmaCompletionHandler}.
 *
 * @deprecated since 1.3: use {@link RdmaCompletionHandler}. The alias stays at least through the 1.3
 *     minor version and is removed in smbdirect 2.0.0, with the package's next major version.
 */
@Deprecated(since = "1.3", forRemoval = true)
@ConsumerType
@FunctionalInterface
public interface RdmaCompletion {

    /**
     * @param bytes the number of bytes transferred (all of the requested length on success)
     * @param failure {@code null} on success, otherwise the reason
     */
    void rdmaComplete(long bytes, Throwable failure);
}
