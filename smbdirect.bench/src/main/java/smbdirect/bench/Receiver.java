package smbdirect.bench;

import java.nio.ByteBuffer;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SendCompletion;
import smbdirect.api.SmbDirectConnection;

/**
 * A connection handler that counts the messages it is given and, when it has an echo buffer,
 * answers each with a send of that buffer. Also the send completion of its side: it counts
 * completions and keeps the first failure. Allocates nothing per message.
 */
final class Receiver implements ConnectionHandler, SendCompletion {

    private final ByteBuffer echo;
    volatile long messages;
    volatile long bytes;
    volatile long sendsCompleted;
    volatile Throwable failure;
    volatile CloseReason closed;

    /** Woken with the count of messages, or null. */
    private final Spin waiting;

    Receiver(ByteBuffer echo) {
        this(echo, null);
    }

    /** A receiver that passes {@code waiting} its message count whenever a message arrives. */
    Receiver(ByteBuffer echo, Spin waiting) {
        this.echo = echo;
        this.waiting = waiting;
    }

    @Override
    public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
        if (echo != null) {
            connection.send(echo, this);
        }
        bytes = bytes + message.length(); // single writer: callbacks of a connection are serial
        long m = messages + 1;
        messages = m;
        if (waiting != null) {
            waiting.wake(m);
        }
    }

    @Override
    public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
        closed = reason;
    }

    @Override
    public void sendComplete(ByteBuffer message, Throwable failure) {
        if (failure != null && this.failure == null) {
            this.failure = failure;
        }
        sendsCompleted = sendsCompleted + 1;
    }

    void checkHealthy() {
        Throwable f = failure;
        if (f != null) {
            throw new IllegalStateException("a send failed", f);
        }
    }
}
