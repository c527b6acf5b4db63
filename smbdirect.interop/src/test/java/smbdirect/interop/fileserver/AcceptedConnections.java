package smbdirect.interop.fileserver;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import smbdirect.api.AcceptHandler;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ListenerEventHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.impl.transport.ForwardingTransport;

/**
 * A transport in front of another that remembers every connection its listeners accepted, so that a
 * test can end one of a server's connections from the server's side (as a failing server would)
 * while the others go on, and that can tell why each ended ({@link #closeReason}). Everything else
 * is the other transport's ({@link ForwardingTransport}). Thread-safe.
 */
public final class AcceptedConnections extends ForwardingTransport {

    private final List<SmbDirectConnection> accepted = new CopyOnWriteArrayList<>();
    private final Map<Long, CloseReason> ended = new ConcurrentHashMap<>();

    public AcceptedConnections(SmbDirectTransport delegate) {
        super(delegate);
    }

    /** Every connection accepted so far, in order, open or not. */
    public List<SmbDirectConnection> accepted() {
        return List.copyOf(accepted);
    }

    /** The accepted connections still open, in order. */
    public List<SmbDirectConnection> open() {
        return accepted.stream().filter(SmbDirectConnection::isOpen).toList();
    }

    /** Why {@code connection} ended, as its handler was told; {@code null} while it is open. */
    public CloseReason closeReason(SmbDirectConnection connection) {
        return ended.get(connection.id());
    }

    private AcceptHandler recording(AcceptHandler handler) {
        return connection -> {
            accepted.add(connection);
            ConnectionHandler h = handler.accepted(connection);
            return h == null ? null : new ConnectionHandler() {
                @Override
                public void onMessage(SmbDirectConnection c, ReceivedMessage message) {
                    h.onMessage(c, message);
                }

                @Override
                public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
                    ended.put(c.id(), reason);
                    h.onDisconnected(c, reason);
                }
            };
        };
    }

    @Override
    public SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler)
            throws SmbDirectException {
        return super.listen(bindAddress, recording(acceptHandler));
    }

    @Override
    public SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler,
            ListenerEventHandler events) throws SmbDirectException {
        return super.listen(bindAddress, recording(acceptHandler), events);
    }
}
