package smbdirect.api.rdma;

import java.nio.ByteBuffer;
import java.util.Set;

import org.osgi.annotation.versioning.ProviderType;

/** A registered memory region of one endpoint. Thread-safe. */
@ProviderType
public interface MemoryRegion {

    /** The remote token (STag / rkey) the peer uses; unguessable. */
    int token();

    /** The local key used in this endpoint's own work requests. */
    int localKey();

    /**
     * The address of the region's first byte as the peer names it in RDMA requests (the Offset of
     * a Buffer Descriptor V1).
     */
    long address();

    /** The registered length. */
    int length();

    /** The registered memory (a view of exactly the registered bytes, position 0). */
    ByteBuffer buffer();

    /** The granted access. */
    Set<MemoryAccess> access();

    /** False once deregistered or invalidated (locally or by the peer's Send with Invalidate). */
    boolean isValid();
}
