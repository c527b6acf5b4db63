package smbdirect.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Receives the upper-layer messages of one connection and its single disconnect notification.
 *
 * <p>Callbacks of one connection are never concurrent and arrive in the order the peer sent the
 * messages. They run on the connection's serial context and must not block: a slow handler
 * delays that connection only, but while it runs no further message of that connection is
 * processed.
 *
 * <h2>A handler that throws</h2>
 * A callback of the upper layer that throws (any {@link Throwable}, an {@link AssertionError} or
 * another {@link Error} included) ends its connection and nothing else:
 * <ul>
 * <li>{@link #onMessage} (and a {@link SendCompletion} or {@link RdmaCompletionHandler} of the
 * connection): the exception is logged at ERROR with its stack trace (printed on standard error by a
 * {@code StandaloneTransport} when SLF4J has no binding), and the connection closes with
 * reason {@link CloseReason.Kind#HANDLER_FAILED}, whose detail names the callback and the exception
 * ({@code ConnectionHandler.onMessage threw java.lang.IllegalStateException: bad header}). The
 * message it was given counts as delivered; messages that arrive after it are not delivered. The peer
 * is disconnected; every send and RDMA operation still pending completes with a
 * {@link SmbDirectException} ({@link SmbDirectException.Kind#CONNECTION_CLOSED}) carrying that reason
 * and, as its cause, the handler's exception; registrations end; then {@link #onDisconnected} is
 * called once, as for any close. Other connections and the listener go on.</li>
 * <li>{@link #onDisconnected}: the connection is already gone; the exception is logged.</li>
 * </ul>
 * A standalone transport also tells the handler given to
 * {@code StandaloneTransport.Builder.callbackFailures} (the test kit's transports fail the running
 * test with the handler's exception as the cause).
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
     * @throws RuntimeException (or any other throwable) to give up the connection: it closes with
     *     {@link CloseReason.Kind#HANDLER_FAILED} (see "A handler that throws" above)
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
