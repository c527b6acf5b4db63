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
 * Entries are pooled per connection, in the serial context's own pool for sends issued while it is
 * idle or from its callbacks, and in a pool shared with other threads for sends that find it busy, so
 * neither allocates in steady state.
 */
final class OutMessage implements Runnable {

    final SendPath sendPath;
    /** Whether the entry belongs to the pool shared with other threads (else the serial context's own). */
    boolean shared;
    ByteBuffer message;
    SendCompletion completion;
    boolean invalidate;
    int remoteToken;
    int length;

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

    OutMessage(SendPath sendPath) {
        this.sendPath = sendPath;
    }

    /**
     * (Re)initialises the entry for one message. Entries are reused from the connection's pool
     * only after they completed successfully (no queue, slot or list refers to them any more).
     */
    OutMessage init(ByteBuffer message, SendCompletion completion, boolean invalidate, int remoteToken) {
        this.message = message;
        this.completion = completion;
        this.invalidate = invalidate;
        this.remoteToken = remoteToken;
        this.length = message == null ? 0 : message.remaining();
        this.sent = 0;
        this.pendingFragments = 0;
        this.allPosted = false;
        this.tokenAttached = false;
        this.done = false;
        return this;
    }

    /** Drops the references to the caller's objects before the entry goes back to the pool. */
    void clear() {
        message = null;
        completion = null;
    }

    /** Bytes of the message not yet placed in a fragment. */
    int unsent() {
        return length - sent;
    }

    @Override
    public void run() {
        sendPath.enqueue(this);
    }
}
