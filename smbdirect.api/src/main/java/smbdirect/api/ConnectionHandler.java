package smbdirect.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Receives the upper-layer messages of one connection and its single disconnect notification.
 *
 * <p>Callbacks of one connection are never concurrent and arrive in the order the peer sent the
 * messages. They run on the connection's serial context and must not block: a slow handler
 * delays that connection only, but while it runs no further message of that connection is
 * processed.
 */
@ConsumerType
public interface ConnectionHandler {

    /**
     * A complete upper-layer message arrived (reassembled from its fragments, 3.1.5.8). Empty
     * Data Transfer messages (credit grants, keepalives) never reach this method.
     *
     * @param connection the connection it arrived on
     * @param message the message; it and its payload buffer are valid only during this call
     *     (copy what must be kept)
     */
    void onMessage(SmbDirectConnection connection, ReceivedMessage message);

    /**
     * The connection is gone (3.1.7.1). Called exactly once per connection, after which no
     * other callback of this handler is made for it. Sends still queued or in flight have been
     * (or are being) completed as failed with the same reason.
     *
     * @param connection the connection that closed
     * @param reason why
     */
    void onDisconnected(SmbDirectConnection connection, CloseReason reason);
}
