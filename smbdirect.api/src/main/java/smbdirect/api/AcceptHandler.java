package smbdirect.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told of each connection a listener accepted and negotiated (3.1.7.2, 3.1.5.6).
 *
 * <p>Called on the new connection's serial context, once per connection. It must not block.
 *
 * <p>Also usable as a whiteboard service: a configured listener (factory PID
 * {@code smbdirect.listener}) hands its connections to the {@code AcceptHandler} service selected
 * by its {@code acceptHandler.target} filter.
 */
@ConsumerType
@FunctionalInterface
public interface AcceptHandler {

    /**
     * A new connection was accepted and negotiated.
     *
     * @param connection the connection, ready to send
     * @return the handler for its messages and its disconnect notification; {@code null} declines
     *     the connection: it is closed with reason {@link CloseReason.Kind#LOCAL_CLOSE} and the
     *     listener event is {@link ListenerEvent.Kind#DECLINED}. When this method throws (any
     *     {@link Throwable}), the connection is declined likewise with reason
     *     {@link CloseReason.Kind#HANDLER_FAILED} naming the exception, which is logged; other
     *     connections and the listener are not affected.
     */
    ConnectionHandler accepted(SmbDirectConnection connection);
}
