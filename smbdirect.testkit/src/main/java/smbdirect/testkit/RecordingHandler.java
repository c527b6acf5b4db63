package smbdirect.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;

/**
 * A {@link ConnectionHandler} that keeps what it was told: every message (copied) and the close
 * reason. Thread-safe.
 */
public class RecordingHandler implements ConnectionHandler {

    private final List<byte[]> messages = new CopyOnWriteArrayList<>();
    private volatile SmbDirectConnection connection;
    private volatile CloseReason closeReason;
    private volatile int disconnects;

    @Override
    public void onMessage(SmbDirectConnection c, ReceivedMessage message) {
        connection = c;
        byte[] b = new byte[message.length()];
        message.payload().duplicate().get(b);
        messages.add(b);
    }

    @Override
    public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
        connection = c;
        closeReason = reason;
        disconnects++;
    }

    /** The messages received so far, in order (copies). */
    public List<byte[]> messages() {
        List<byte[]> out = new ArrayList<>();
        for (byte[] m : messages) {
            out.add(m.clone());
        }
        return out;
    }

    /** The reason the connection closed, or null while it is open. */
    public CloseReason closeReason() {
        return closeReason;
    }

    /** How many times {@code onDisconnected} was called (the transport promises once). */
    public int disconnectNotifications() {
        return disconnects;
    }

    /** The connection, once it delivered something. */
    public SmbDirectConnection connection() {
        return connection;
    }
}
