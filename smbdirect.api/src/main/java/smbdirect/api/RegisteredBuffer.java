package smbdirect.api;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A buffer registered for one connection (3.1.4.3). Thread-safe.
 */
@ProviderType
public interface RegisteredBuffer {

    /** The registered bytes (a duplicate view: position 0, limit = registered length). */
    ByteBuffer buffer();

    /** The registered length in bytes. */
    int length();

    /** The access granted to the peer. */
    RemoteAccess access();

    /**
     * The Buffer Descriptor V1 list (2.2.3.1) covering the whole buffer, in buffer order, to embed
     * in an upper-layer message; empty for {@link RemoteAccess#LOCAL_ONLY}.
     */
    List<BufferDescriptor> descriptors();

    /** Whether the registration is still valid (not deregistered, not invalidated by the peer). */
    boolean isValid();

    /**
     * Deregisters (3.1.4.4). When the returned stage completes successfully every remote access to
     * the buffer has finished and none is possible any more (the tokens are invalidated); the
     * buffer belongs to the caller again. Idempotent.
     */
    CompletionStage<Void> deregister();
}
