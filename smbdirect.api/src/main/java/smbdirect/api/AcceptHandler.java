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
     * @return the handler for its messages and its disconnect notification; {@code null} closes
     *     the connection with reason {@link CloseReason.Kind#LOCAL_CLOSE}
     */
    ConnectionHandler accepted(SmbDirectConnection connection);
}
