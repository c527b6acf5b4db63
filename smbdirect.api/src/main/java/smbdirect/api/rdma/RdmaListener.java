package smbdirect.api.rdma;

import java.net.InetSocketAddress;

import org.osgi.annotation.versioning.ProviderType;

/** A listening RDMA CM identifier. Thread-safe. */
@ProviderType
public interface RdmaListener {

    /** The bound address with the actual port. */
    InetSocketAddress localAddress();

    /**
     * Stops listening; no further connection request is reported after this returns. Endpoints
     * created from earlier requests are not affected. Idempotent.
     */
    void close();
}
