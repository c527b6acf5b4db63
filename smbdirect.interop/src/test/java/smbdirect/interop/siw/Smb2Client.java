package smbdirect.interop.siw;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;

/**
 * A minimal SMB2 client over one {@link SmbDirectConnection}, whatever provider it runs on: NEGOTIATE,
 * a logon with NTLMv2, TREE_CONNECT, CREATE, WRITE and READ with an RDMA channel, CLOSE, one request
 * at a time. It keeps the MessageId sequence and the credits ([MS-SMB2] 3.2.4.1.5: a READ or WRITE of
 * N bytes is charged ceil(N / 65536) credits) and reports what the transport said about each
 * response (the token a Send with Invalidate invalidated). Test code, not a product; no signing, no
 * encryption. Not thread-safe: one test thread drives it.
 */
final class Smb2Client {

    /** STATUS_PENDING: an interim response; the final one follows with the same MessageId. */
    static final int STATUS_PENDING = 0x00000103;

    /** What the connection delivered, and how it ended: the {@link ConnectionHandler} to connect with. */
    static final class Inbox implements ConnectionHandler {
        private final BlockingQueue<Response> received = new LinkedBlockingQueue<>();
        private final CompletableFuture<CloseReason> closed = new CompletableFuture<>();

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            byte[] b = new byte[message.payload().remaining()];
            message.payload().duplicate().get(b);
            received.add(new Response(b, message.hasInvalidatedToken(), message.invalidatedToken()));
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            closed.complete(reason);
        }

        /** How the connection ended (completes once, with the engine's reason). */
        CompletableFuture<CloseReason> closed() {
            return closed;
        }

        /** The next message, or null when the connection ended first or nothing came within {@code wait}. */
        Response poll(Duration wait) throws InterruptedException {
            long deadline = System.nanoTime() + wait.toNanos();
            while (true) {
                Response r = received.poll(Math.min(200_000_000L, Math.max(0, deadline - System.nanoTime())),
                        TimeUnit.NANOSECONDS);
                if (r != null || closed.isDone() && received.isEmpty() || System.nanoTime() - deadline >= 0) {
                    return r == null ? received.poll() : r;
                }
            }
        }
    }

    /**
     * One SMB2 message from the server.
     *
     * @param bytes the message
     * @param invalidated whether its Send invalidated one of our tokens (Send with Invalidate)
     * @param invalidatedToken that token
     */
    record Response(byte[] bytes, boolean invalidated, int invalidatedToken) {

        Smb2.Header header() {
            return Smb2.Header.of(bytes);
        }

        int status() {
            return header().status();
        }
    }

    /** A request and what came of it: a response, or the end of the connection and its reason. */
    record Answer(Response response, CloseReason closed) {
    }

    /** The exchanged NEGOTIATE. */
    record Negotiated(byte[] request, Response response) {
    }

    /**
     * The SMB2 logon.
     *
     * @param statuses the NTSTATUS of each SESSION_SETUP response, in order
     * @param sessionId the SessionId the server assigned
     * @param sessionFlags the SessionFlags of the final response ([MS-SMB2] 2.2.6)
     */
    record Logon(List<Integer> statuses, long sessionId, int sessionFlags) {
    }

    private final SmbDirectConnection connection;
    private final Inbox inbox;
    private final Duration wait;
    private long nextMessageId;
    /** Credits granted and not yet charged; one before the first response ([MS-SMB2] 3.2.5.1.4). */
    private long credits = 1;
    private long sessionId;
    private int treeId;

    /**
     * @param connection an SMB Direct connection to the server, negotiated
     * @param inbox the handler {@code connection} was opened with
     * @param wait how long to wait for each response
     */
    Smb2Client(SmbDirectConnection connection, Inbox inbox, Duration wait) {
        this.connection = connection;
        this.inbox = inbox;
        this.wait = wait;
    }

    SmbDirectConnection connection() {
        return connection;
    }

    Inbox inbox() {
        return inbox;
    }

    long sessionId() {
        return sessionId;
    }

    int treeId() {
        return treeId;
    }

    /** NEGOTIATE with {@link Smb2#DIALECTS} and a random ClientGuid. */
    Negotiated negotiate() throws Exception {
        byte[] guid = new byte[16];
        new SecureRandom().nextBytes(guid);
        return negotiate(Smb2.negotiateRequest(0, guid));
    }

    /** NEGOTIATE with {@code request}, which must be the first request (MessageId 0). */
    Negotiated negotiate(byte[] request) throws Exception {
        if (Smb2.Header.of(request).messageId() != 0 || nextMessageId != 0) {
            throw new IllegalStateException("NEGOTIATE comes first, with MessageId 0");
        }
        take(1);
        return new Negotiated(request, exchange(request, "NEGOTIATE"));
    }

    /**
     * Logs on as {@code user} / {@code password} (NTLMSSP with NTLMv2, no SPNEGO) with two
     * SESSION_SETUPs.
     */
    Logon logOn(String user, String password) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        Response r = exchange(Smb2.sessionSetup(take(1), 0, Ntlm.negotiate()), "SESSION_SETUP 1");
        statuses.add(r.status());
        long session = Smb2.sessionId(r.bytes());
        Ntlm.Challenge challenge = Ntlm.Challenge.of(Smb2.securityBuffer(r.bytes()));
        byte[] clientChallenge = new byte[8];
        new SecureRandom().nextBytes(clientChallenge);
        long filetime = (System.currentTimeMillis() + 11_644_473_600_000L) * 10_000L;
        byte[] token;
        try {
            token = Ntlm.authenticate(challenge, user, "", password, clientChallenge, filetime);
        } catch (GeneralSecurityException e) {
            throw new AssertionError("NTLMv2 response: " + e, e);
        }
        r = exchange(Smb2.sessionSetup(take(1), session, token), "SESSION_SETUP 2");
        statuses.add(r.status());
        sessionId = session;
        return new Logon(statuses, session, Smb2.sessionFlags(r.bytes()));
    }

    /** TREE_CONNECT to {@code path}; the tree is used by what follows. Fails unless STATUS_SUCCESS. */
    int treeConnect(String path) throws Exception {
        Response r = succeed(exchange(Smb2.treeConnect(take(1), sessionId, path), "TREE_CONNECT " + path));
        treeId = Smb2.treeId(r.bytes());
        return treeId;
    }

    /** CREATE {@code name} with {@code disposition}; the FileId. Fails unless STATUS_SUCCESS. */
    byte[] create(String name, int disposition) throws Exception {
        return Smb2.fileId(succeed(exchange(Smb2.create(take(1), sessionId, treeId, name, disposition),
                "CREATE " + name)).bytes());
    }

    /** CLOSE {@code fileId}. */
    Response close(byte[] fileId) throws Exception {
        return exchange(Smb2.close(take(1), sessionId, treeId, fileId), "CLOSE");
    }

    /** WRITE {@code length} bytes at {@code offset} that the server RDMA-Reads from {@code descriptors}. */
    byte[] writeRequest(byte[] fileId, long offset, int length, int channel, List<BufferDescriptor> descriptors) {
        // [MS-SMB2] 3.2.4.7: the charge follows Length + the RDMA length; ksmbd counts Length (0)
        int charge = charge(length);
        return Smb2.writeRdma(take(charge), charge, sessionId, treeId, fileId, offset, length, channel, descriptors);
    }

    /** READ {@code length} bytes at {@code offset} that the server RDMA-Writes into {@code descriptors}. */
    byte[] readRequest(byte[] fileId, long offset, int length, int channel, List<BufferDescriptor> descriptors) {
        int charge = charge(length);
        return Smb2.readRdma(take(charge), charge, sessionId, treeId, fileId, offset, length, channel, descriptors);
    }

    /** Sends {@code request} and returns its response; fails when the connection ends first. */
    Response exchange(byte[] request, String what) throws Exception {
        Answer a = answer(request, what);
        if (a.response() == null) {
            throw new AssertionError(what + ": no response; the connection ended: " + a.closed());
        }
        return a.response();
    }

    /**
     * Sends {@code request} and waits for its response or for the end of the connection, whichever
     * comes first; fails when neither comes within the wait.
     */
    Answer answer(byte[] request, String what) throws Exception {
        Smb2.Header sent = Smb2.Header.of(request);
        try {
            connection.send(ByteBuffer.wrap(request)).toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            CloseReason reason = closedWithin(wait);
            if (reason != null) {
                return new Answer(null, reason);
            }
            throw new AssertionError(what + ": the send failed: " + e.getCause(), e.getCause());
        }
        while (true) {
            Response r = inbox.poll(wait);
            if (r == null) {
                CloseReason reason = closedWithin(Duration.ofSeconds(1));
                if (reason != null) {
                    return new Answer(null, reason);
                }
                throw new AssertionError(what + ": neither a response nor the end of the connection within " + wait);
            }
            Smb2.Header h = r.header();
            if (h.messageId() != sent.messageId() || h.command() != sent.command()) {
                throw new AssertionError(what + ": the response is for MessageId " + h.messageId() + " command "
                        + h.command() + ", not " + sent.messageId() + " / " + sent.command());
            }
            credits += Smb2.creditsGranted(r.bytes());
            if (h.status() != STATUS_PENDING) {
                return new Answer(r, null);
            }
        }
    }

    private CloseReason closedWithin(Duration d) throws InterruptedException {
        try {
            return inbox.closed().get(d.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return null;
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }

    private static Response succeed(Response r) {
        if (r.status() != 0) {
            throw new AssertionError("SMB2 command " + r.header().command() + " failed: status 0x"
                    + Integer.toHexString(r.status()));
        }
        return r;
    }

    /** [MS-SMB2] 3.2.4.1.5: one credit per 64 KiB started. */
    static int charge(int length) {
        return Math.max(1, (int) ((Integer.toUnsignedLong(length) + 65535) / 65536));
    }

    /** The MessageId for a request charged {@code charge} credits, within the credits granted. */
    private long take(int charge) {
        if (charge > credits) {
            throw new IllegalStateException("a request charged " + charge + " credits, but only " + credits
                    + " are granted");
        }
        credits -= charge;
        long id = nextMessageId;
        nextMessageId += charge;
        return id;
    }
}
