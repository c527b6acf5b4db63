package smbdirect.impl.engine;

import java.nio.ByteBuffer;

/**
 * Told of every SMBD message a connection sends or receives (for a capture writer). Called on the
 * connection's serial context; must not block or keep the buffer.
 */
@FunctionalInterface
public interface TraceHook {

    /** Records nothing. */
    TraceHook NONE = (id, initiator, outbound, buffer, offset, length) -> { };

    /**
     * @param connectionId the connection
     * @param initiator whether the connection is the active side
     * @param outbound sent (true) or received (false)
     * @param buffer holds the message at {@code offset}, {@code length} bytes; valid during the call
     */
    void message(long connectionId, boolean initiator, boolean outbound, ByteBuffer buffer, int offset, int length);
}
