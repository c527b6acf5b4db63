package smbdirect.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told of what happens on a listener: accepted connections, refused connection requests and failed
 * negotiations ({@link ListenerEvent}).
 *
 * <p>Given to {@link SmbDirectTransport#listen(java.net.InetSocketAddress, AcceptHandler,
 * ListenerEventHandler)} for the events of one listener, or registered as a whiteboard service to
 * receive the events of every listener of the transport (API-opened and configured ones).
 *
 * <p>Called on a provider or connection thread, possibly concurrently for different connections;
 * it must not block. What it throws (any {@link Throwable}) is logged (and reported to a standalone
 * transport's {@code callbackFailures} handler) and changes nothing else: the connection the event
 * is about is not affected.
 */
@ConsumerType
@FunctionalInterface
public interface ListenerEventHandler {

    /** Something happened on a listener. */
    void onEvent(ListenerEvent event);
}
