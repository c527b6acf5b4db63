package smbdirect.api;

import java.nio.ByteBuffer;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One complete, reassembled upper-layer message as handed to
 * {@link ConnectionHandler#onMessage}. The object and its payload are reused by the transport:
 * valid only during the callback.
 */
@ProviderType
public interface ReceivedMessage {

    /**
     * The message bytes between position and limit; a read-only view, little-endian order is not
     * implied (SMB2 decides). Valid only during the callback.
     */
    ByteBuffer payload();

    /** The message length in bytes (the payload's remaining bytes when the callback starts). */
    int length();

    /**
     * Whether the peer invalidated one of our registered buffers with this message
     * (Send with Invalidate, 3.1.5.8 InvalidatedToken).
     */
    boolean hasInvalidatedToken();

    /**
     * The token (STag) the peer invalidated, meaningful only when
     * {@link #hasInvalidatedToken()} is true; an unsigned 32-bit value.
     */
    int invalidatedToken();
}
