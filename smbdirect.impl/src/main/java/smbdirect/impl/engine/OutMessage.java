package smbdirect.impl.engine;

import java.nio.ByteBuffer;

import smbdirect.api.SendCompletion;

/**
 * One upper-layer message on its way out: an entry of Connection.SendQueue (3.1.1.1) with its
 * optional remote token to invalidate, and the fragmentation cursor (3.1.5.4). Running it hands it
 * to the connection's serial context.
 *
 * <p>Owned by the connection's serial context once run; the message buffer belongs to the transport
 * until {@link SendCompletion#sendComplete} was called (its position and limit are never changed).
 */
final class OutMessage implements Runnable {

    final Connection connection;
    final ByteBuffer message;
    final SendCompletion completion;
    final boolean invalidate;
    final int remoteToken;
    final int length;

    /** Payload bytes already placed in fragments. */
    int sent;
    /** Fragments posted and not yet completed. */
    int pendingFragments;
    /** Whether the fragment with RemainingDataLength 0 was posted. */
    boolean allPosted;
    /** Whether the token was attached to a fragment (R-3.1.5.4-19: exactly one). */
    boolean tokenAttached;
    /** Whether the completion was called. */
    boolean done;

    OutMessage(Connection connection, ByteBuffer message, SendCompletion completion, boolean invalidate, int remoteToken) {
        this.connection = connection;
        this.message = message;
        this.completion = completion;
        this.invalidate = invalidate;
        this.remoteToken = remoteToken;
        this.length = message == null ? 0 : message.remaining();
    }

    /** Bytes of the message not yet placed in a fragment. */
    int unsent() {
        return length - sent;
    }

    @Override
    public void run() {
        connection.enqueue(this);
    }
}
