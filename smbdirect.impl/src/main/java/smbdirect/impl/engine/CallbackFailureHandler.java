package smbdirect.impl.engine;

/**
 * Told of every callback of the upper layer that threw (a connection's handler or completion, an
 * accept handler, a listener event handler), after the engine logged it and closed the connection
 * concerned. Called on the thread of the callback; must not block.
 */
@FunctionalInterface
public interface CallbackFailureHandler {

    /**
     * @param callback the callback that threw, e.g. {@code ConnectionHandler.onMessage}
     * @param connectionId the connection concerned, or 0 for none
     * @param failure what it threw
     */
    void callbackFailed(String callback, long connectionId, Throwable failure);
}
