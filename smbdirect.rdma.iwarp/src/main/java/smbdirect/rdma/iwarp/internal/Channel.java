package smbdirect.rdma.iwarp.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP connection on an {@link IoLoop}: its selection key, whose attachment this is, the owner
 * that ready events go to (the MPA setup, then the endpoint), and the end of the connection. Each
 * channel holds one unit of the provider's connection cap until it is closed.
 *
 * <p>Ending is graceful where it can be (iwarp.md §5.7): the rest of a partly written FPDU and a
 * Terminate are written, then a FIN; input is read and dropped until the peer's FIN or a linger
 * deadline, so that unread input never turns our close into a reset that could destroy the
 * Terminate in flight. No callback reaches anyone during that. Loop thread only.
 */
final class Channel implements IoHandler {

    private static final Logger LOG = LoggerFactory.getLogger(Channel.class);
    /** How long an ending connection waits for its output to drain and the peer's FIN. */
    static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(2);

    final IwarpDevice provider;
    final IoLoop loop;
    final SocketChannel socket;
    private SelectionKey key;
    private IoHandler owner;
    private int ops = -1;
    private boolean closed;
    private boolean closing;
    private ByteBuffer[] pending;
    private int pendingFrom;
    private int pendingTo;
    private boolean outputShut;
    private boolean inputEnded;
    private ByteBuffer drain;
    private final Deadline linger = new Deadline(this::closeNow);

    /** The caller holds one unit of the provider's connection cap for this socket. */
    Channel(IwarpDevice provider, IoLoop loop, SocketChannel socket) {
        this.provider = provider;
        this.loop = loop;
        this.socket = socket;
    }

    void register(IoHandler newOwner, int interest) throws IOException {
        owner = newOwner;
        key = loop.register(socket, interest, this);
        ops = interest;
    }

    void owner(IoHandler newOwner) {
        owner = newOwner;
    }

    boolean isClosing() {
        return closing || closed;
    }

    /** Sets the interest set if it changed. */
    void interest(int interest) {
        if (interest != ops && key != null && key.isValid()) {
            key.interestOps(interest);
            ops = interest;
        }
    }

    @Override
    public void onReady(SelectionKey k, int readyOps) {
        if (closing) {
            continueClosing(readyOps);
        } else if (owner != null) {
            owner.onReady(k, readyOps);
        }
    }

    @Override
    public void onCrash(Throwable failure) {
        if (closing || owner == null) {
            LOG.error("closing a connection failed", failure);
            closeNow();
        } else {
            owner.onCrash(failure);
        }
    }

    /**
     * Writes {@code buffers[from, to)} (may be empty), sends a FIN, drops input until the peer's
     * FIN, and closes; at most {@link #LINGER_NANOS} in all.
     */
    void closeGracefully(ByteBuffer[] buffers, int from, int to) {
        if (closing || closed) {
            return;
        }
        closing = true;
        owner = null;
        pending = buffers;
        pendingFrom = from;
        pendingTo = to;
        if (key == null || !socket.isConnected()) {
            closeNow();
            return;
        }
        loop.arm(linger, LINGER_NANOS);
        continueClosing(SelectionKey.OP_WRITE | SelectionKey.OP_READ);
    }

    private void continueClosing(int readyOps) {
        try {
            if (!outputShut && (readyOps & SelectionKey.OP_WRITE) != 0) {
                while (pending != null && pendingFrom < pendingTo) {
                    socket.write(pending, pendingFrom, pendingTo - pendingFrom);
                    while (pendingFrom < pendingTo && !pending[pendingFrom].hasRemaining()) {
                        pendingFrom++;
                    }
                    if (pendingFrom < pendingTo) {
                        interest(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                        break;
                    }
                }
                if (pending == null || pendingFrom >= pendingTo) {
                    socket.shutdownOutput();
                    outputShut = true;
                    pending = null;
                    if (inputEnded) {
                        closeNow();
                        return;
                    }
                    interest(SelectionKey.OP_READ);
                }
            }
            if (!inputEnded && (readyOps & SelectionKey.OP_READ) != 0) {
                if (drain == null) {
                    drain = ByteBuffer.allocateDirect(4096);
                }
                for (int i = 0; i < 64; i++) {
                    drain.clear();
                    int n = socket.read(drain);
                    if (n < 0) {
                        inputEnded = true;
                        if (outputShut) {
                            closeNow();
                        } else {
                            interest(SelectionKey.OP_WRITE);
                        }
                        return;
                    }
                    if (n == 0) {
                        break;
                    }
                }
            }
        } catch (IOException e) {
            LOG.debug("closing {}: {}", socket, e.toString());
            closeNow();
        }
    }

    /** Closes the socket at once and returns its unit of the connection cap. Idempotent. */
    void closeNow() {
        if (closed) {
            return;
        }
        closed = true;
        closing = true;
        owner = null;
        loop.disarm(linger);
        if (key != null) {
            key.cancel();
        }
        try {
            socket.close();
        } catch (IOException e) {
            LOG.debug("closing {} failed: {}", socket, e.toString());
        }
        provider.connectionClosed();
    }
}
