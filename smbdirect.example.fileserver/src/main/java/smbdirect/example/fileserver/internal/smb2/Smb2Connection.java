package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.example.fileserver.internal.share.Share;

/**
 * One SMB2 connection ([MS-SMB2] 3.3.1.7) over one SMB Direct connection: the transport's
 * {@link ConnectionHandler}. On the transport's callback thread it copies each message, checks
 * its headers and MessageIds in arrival order (a violation ends the connection with the reason),
 * and hands the requests to a worker; the {@link Dispatcher} runs them and sends the response.
 * Holds the negotiated state, the sessions, the opens and the registered I/O buffers, and releases
 * them all when the connection ends. Thread-safe.
 */
public final class Smb2Connection implements ConnectionHandler {

    private static final Logger LOG = LoggerFactory.getLogger(Smb2Connection.class);

    private enum NegotiateState { NONE, WILDCARD, DONE }

    private final ServerContext server;
    private final SmbDirectConnection transport;
    private final Consumer<Smb2Connection> onClosed;
    private final CreditWindow credits = new CreditWindow();
    private final OpenTable opens = new OpenTable(new SecureRandom().nextLong() & 0x7FFF_FFFF_0000_0000L);
    private final Map<Long, Session> sessions = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();
    private final RdmaBufferPool buffers;
    /** Only touched on the transport's callback thread. */
    private NegotiateState negotiateState = NegotiateState.NONE;
    private volatile Negotiated negotiated;
    private volatile byte[] preauthHash;
    private volatile boolean disconnected;

    /**
     * What NEGOTIATE settled ([MS-SMB2] 3.3.5.4), and what the client sent, for
     * FSCTL_VALIDATE_NEGOTIATE_INFO (3.3.5.15.12).
     */
    record Negotiated(int dialect, int clientCapabilities, byte[] clientGuid, int clientSecurityMode, int[] clientDialects) {
    }

    public Smb2Connection(ServerContext server, SmbDirectConnection transport, Consumer<Smb2Connection> onClosed) {
        this.server = server;
        this.transport = transport;
        this.onClosed = onClosed;
        this.buffers = new RdmaBufferPool(transport, transport.parameters().maxReadWriteSize(),
                server.maxBuffersPerConnection());
    }

    ServerContext server() {
        return server;
    }

    Share share() {
        return server.share();
    }

    public SmbDirectConnection transport() {
        return transport;
    }

    OpenTable opens() {
        return opens;
    }

    RdmaBufferPool buffers() {
        return buffers;
    }

    Negotiated negotiated() {
        return negotiated;
    }

    void negotiated(Negotiated value) {
        negotiated = value;
    }

    int dialect() {
        Negotiated n = negotiated;
        return n == null ? 0 : n.dialect();
    }

    byte[] preauthHash() {
        return preauthHash;
    }

    void preauthHash(byte[] value) {
        preauthHash = value;
    }

    /** MaxReadSize and MaxWriteSize: one RDMA transfer, the connection's MaxReadWriteSize. */
    int maxReadWriteSize() {
        return transport.parameters().maxReadWriteSize();
    }

    /**
     * MaxTransactSize: what a response fits inline in the largest message the client reassembles
     * (room left for the header and the response's fixed part), at most 1 MiB.
     */
    int maxTransactSize() {
        long fits = transport.parameters().maxFragmentedSendSize() - 256;
        return (int) Math.max(4096, Math.min(fits, 1 << 20));
    }

    /** The largest response that can be sent inline. */
    long maxResponseSize() {
        return transport.parameters().maxFragmentedSendSize();
    }

    CreditWindow credits() {
        return credits;
    }

    Session newSession() {
        long id;
        Session s;
        do {
            id = random.nextLong() & 0x0000_FFFF_FFFF_FFFFL;
            s = new Session(id, preauthHash);
        } while (id == 0 || sessions.putIfAbsent(id, s) != null);
        return s;
    }

    Session session(long id) {
        return sessions.get(id);
    }

    Session removeSession(long id) {
        return sessions.remove(id);
    }

    @Override
    public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
        ByteBuffer payload = message.payload();
        byte[] copy = new byte[payload.remaining()];
        payload.duplicate().get(copy);
        ByteBuffer m = ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN);
        try {
            if (copy.length >= 4 && m.getInt(0) == Smb2.SMB1_ID) {
                acceptSmb1Negotiate();
                submit(() -> Negotiate.smb1(this, m));
                return;
            }
            List<Smb2Request> requests = split(m);
            if (!requests.isEmpty()) {
                submit(() -> Dispatcher.process(this, requests));
            }
        } catch (MalformedMessageException e) {
            close(e.getMessage());
        }
    }

    private void acceptSmb1Negotiate() throws MalformedMessageException {
        if (negotiateState != NegotiateState.NONE) {
            throw new MalformedMessageException(String.format("ProtocolId=0x%08X: an SMB1 message after the first;"
                    + " only an SMB1 NEGOTIATE may open a connection (3.3.5.3)", Smb2.SMB1_ID));
        }
        negotiateState = NegotiateState.WILDCARD;
        credits.consume(0, 1);
    }

    /** The requests of a (compound) message, headers and MessageIds checked; CANCEL dropped. */
    private List<Smb2Request> split(ByteBuffer m) throws MalformedMessageException {
        List<Smb2Request> requests = new ArrayList<>();
        int at = 0;
        while (true) {
            Smb2Header h = Smb2Header.decode(m, at);
            int length = h.nextCommand() == 0 ? m.limit() - at : h.nextCommand();
            checkNegotiateOrder(h, at == 0 && h.nextCommand() == 0);
            if (h.command() == Smb2.CANCEL) {
                LOG.debug("connection {}: CANCEL of MessageId {}: nothing is pending", transport.id(), h.messageId());
            } else {
                credits.consume(h.messageId(), h.creditCharge());
                requests.add(new Smb2Request(m, at, length, h));
            }
            if (h.nextCommand() == 0) {
                return requests;
            }
            at += h.nextCommand();
        }
    }

    private void checkNegotiateOrder(Smb2Header h, boolean alone) throws MalformedMessageException {
        if (h.command() == Smb2.NEGOTIATE) {
            if (negotiateState == NegotiateState.DONE) {
                throw new MalformedMessageException("a second NEGOTIATE on the connection (3.3.5.4)");
            }
            if (!alone) {
                throw new MalformedMessageException("NEGOTIATE in a compound (3.3.5.2.7)");
            }
            negotiateState = NegotiateState.DONE;
        } else if (negotiateState != NegotiateState.DONE) {
            throw new MalformedMessageException(Smb2.commandName(h.command()) + " before NEGOTIATE (3.3.5.2)");
        }
    }

    private void submit(Runnable work) {
        try {
            server.workers().execute(() -> {
                try {
                    work.run();
                } catch (RuntimeException | Error e) {
                    LOG.error("connection {}: a request failed outside its error handling", transport.id(), e);
                    close("internal error: " + e);
                }
            });
        } catch (RejectedExecutionException e) {
            close("the server is stopping");
        }
    }

    /** Sends one response message; a failure is logged (the connection is ending then). */
    void send(ByteBuffer message, boolean invalidate, int token) {
        if (!transport.isOpen()) {
            LOG.debug("connection {}: closed, response of {} bytes dropped", transport.id(), message.remaining());
            return;
        }
        if (invalidate) {
            transport.sendWithInvalidate(message, token, this::sent);
        } else {
            transport.send(message, this::sent);
        }
    }

    private void sent(ByteBuffer message, Throwable failure) {
        if (failure != null) {
            LOG.warn("connection {}: a response of {} bytes was not sent: {}", transport.id(), message.remaining(),
                    failure.toString());
        }
    }

    /** Ends the connection for a reason the protocol gives; logged at WARN with the reason. */
    void close(String reason) {
        if (transport.isOpen()) {
            LOG.warn("connection {} from {}: closing: {}", transport.id(), transport.peerAddress(), reason);
        }
        transport.close();
    }

    @Override
    public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
        LOG.info("connection {} from {} ended: {}", connection.id(), connection.peerAddress(), reason);
        disconnected = true;
        buffers.close();
        List<Open> left = opens.removeAll(0, 0);
        sessions.clear();
        if (left.isEmpty()) {
            onClosed.accept(this);
            return;
        }
        try {
            server.workers().execute(() -> closeAll(left));
        } catch (RejectedExecutionException e) {
            closeAll(left);
        }
    }

    private void closeAll(List<Open> left) {
        try {
            for (Open o : left) {
                closeQuietly(o);
            }
        } finally {
            onClosed.accept(this);
        }
    }

    /** Whether the connection has ended (opens made by requests still running are closed at once). */
    boolean disconnected() {
        return disconnected;
    }

    /** Closes an open that is already out of the table, logging a failure. */
    void closeQuietly(Open o) {
        synchronized (o) {
            try {
                server.share().close(o.file(), false);
            } catch (SmbStatusException | RuntimeException e) {
                LOG.warn("connection {}: closing {}: {}", transport.id(), o.file().path(), e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return "connection " + transport.id() + " from " + transport.peerAddress();
    }
}
