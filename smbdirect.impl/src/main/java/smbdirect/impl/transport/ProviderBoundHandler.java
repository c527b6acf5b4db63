package smbdirect.impl.transport;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;

/**
 * Reports the end of a connection whose provider is retiring with the retiring reason
 * ({@code PROVIDER_REPLACED} or {@code SHUTDOWN}), whatever the connection noticed first while its
 * provider was taken away (its peer's disconnect, a failed post); the first reason stays in the
 * detail. Other callbacks pass through unchanged.
 */
final class ProviderBoundHandler implements ConnectionHandler {
    private final ConnectionHandler delegate;
    private final ProviderEntry entry;

    ProviderBoundHandler(ConnectionHandler delegate, ProviderEntry entry) {
        this.delegate = delegate;
        this.entry = entry;
    }

    /** The handler of the upper layer behind this one. */
    ConnectionHandler delegate() {
        return delegate;
    }

    @Override
    public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
        delegate.onMessage(connection, message);
    }

    @Override
    public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
        CloseReason retiring = entry.retiring;
        CloseReason reported = reason;
        if (retiring != null && reason.kind() != retiring.kind()) {
            reported = new CloseReason(retiring.kind(), reason.rule(), retiring.detail() + " (first seen: " + reason
                    + ")");
        }
        delegate.onDisconnected(connection, reported);
    }
}
