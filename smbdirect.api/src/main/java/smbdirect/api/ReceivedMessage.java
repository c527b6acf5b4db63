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
     * The message bytes between position and limit: a read-only view in
     * {@link java.nio.ByteOrder#LITTLE_ENDIAN} order, the byte order of every SMB2 field, so
     * {@code payload().getShort(payload().position() + 12)} reads an SMB2 header's Command. As for
     * every {@code ByteBuffer}, a {@code duplicate()} or {@code slice()} of it starts big-endian
     * again. Valid only during the callback. (Before 1.2 the order was left at the
     * {@code ByteBuffer} default, big-endian.)
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
