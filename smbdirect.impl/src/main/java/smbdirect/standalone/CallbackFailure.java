package smbdirect.standalone;

import java.util.Objects;

/**
 * A callback of the upper layer that threw, as {@link StandaloneTransport.Builder#callbackFailures}
 * reports it: by then the transport logged it and, for a callback of a connection, closed that
 * connection with {@link smbdirect.api.CloseReason.Kind#HANDLER_FAILED}.
 *
 * @param callback the callback, e.g. {@code ConnectionHandler.onMessage},
 *     {@code SendCompletion.sendComplete}, {@code RdmaCompletionHandler.rdmaComplete},
 *     {@code AcceptHandler.accepted}, {@code ConnectionHandler.onDisconnected} or
 *     {@code ListenerEventHandler.onEvent}
 * @param connectionId the id of the connection concerned, or 0 when none is
 * @param failure what the callback threw
 * @since 1.1
 */
public record CallbackFailure(String callback, long connectionId, Throwable failure) {

    public CallbackFailure {
        Objects.requireNonNull(callback, "callback");
        Objects.requireNonNull(failure, "failure");
    }

    @Override
    public String toString() {
        return callback + (connectionId != 0 ? " of connection " + connectionId : "") + " threw " + failure;
    }
}
