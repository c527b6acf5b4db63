package smbdirect.example.fileserver.client;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectTransport;

/**
 * An SMB2 client over one {@link SmbDirectConnection}, written from [MS-SMB2] for the file
 * server's tests: NEGOTIATE (3.0.2, 3.1.1 with its negotiate contexts and pre-auth hash),
 * SESSION_SETUP with raw NTLMSSP (NTLMv2 or anonymous), TREE_CONNECT, CREATE, CLOSE, READ and
 * WRITE inline or through SMB2_CHANNEL_RDMA_V1 / _V1_INVALIDATE over buffers it registers (one or
 * several descriptors), QUERY_INFO, SET_INFO, QUERY_DIRECTORY, FLUSH, IOCTL, ECHO, LOGOFF,
 * TREE_DISCONNECT, CHANGE_NOTIFY, LOCK, compounded requests, and raw bytes for malformed cases.
 *
 * <p>It keeps the MessageId sequence and the credits the server granted ([MS-SMB2] 3.2.4.1.5,
 * 3.2.5.1.4), never sending beyond them, and checks every response as 3.2.5.1 asks: ProtocolId,
 * StructureSize 64, SMB2_FLAGS_SERVER_TO_REDIR, a MessageId and Command of a request it sent, the
 * SessionId of that request, the body's StructureSize for the command (9 for an error), and no
 * Send with Invalidate of a token the request did not offer for invalidation. What is wrong with a
 * response is kept in {@link #problems()} and fails the call that waits for it. A signed response
 * of a session whose key the client holds must carry the right signature; the client signs the
 * requests of the commands {@link #sign} names.
 *
 * <p>Requests may be outstanding together ({@link #submit}); responses are matched by MessageId.
 * Every wait is bounded by the client's wait and ends early when the connection closes. Test code;
 * no signing of requests, no encryption. Thread-safe.
 */
public final class Smb2TestClient implements AutoCloseable {

    /** The body StructureSize of each command's response ([MS-SMB2] 2.2.4-2.2.38), by command. */
    private static final int[] RESPONSE_STRUCTURE_SIZE = {65, 9, 4, 16, 4, 89, 60, 4, 17, 17, 4, 49, 0, 4, 9, 9, 9,
        2, 24};

    /** The Capabilities of the client's NEGOTIATE: DFS, leasing, large MTU, multi-channel, as cifs offers. */
    public static final int CLIENT_CAPABILITIES = Smb2.CAP_DFS | Smb2.CAP_LEASING | Smb2.CAP_LARGE_MTU
            | Smb2.CAP_MULTI_CHANNEL;

    /** The connection's handler: hands messages to the client and records the end. */
    private static final class Handler implements ConnectionHandler {
        volatile Smb2TestClient client;
        final CompletableFuture<CloseReason> closed = new CompletableFuture<>();
        final BlockingQueue<Response> early = new LinkedBlockingQueue<>();

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            byte[] b = new byte[message.payload().remaining()];
            message.payload().duplicate().get(b);
            Smb2TestClient c = client;
            if (c == null) {
                early.add(new Response(b, message.hasInvalidatedToken(), message.invalidatedToken()));
                return;
            }
            c.received(b, message.hasInvalidatedToken(), message.invalidatedToken());
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            closed.complete(reason);
            Smb2TestClient c = client;
            if (c != null) {
                c.failPending(reason);
            }
        }
    }

    /**
     * A request sent and not yet answered.
     *
     * @param invalidateToken the token its response may invalidate (the first descriptor of an
     *     SMB2_CHANNEL_RDMA_V1_INVALIDATE READ or WRITE), or null when it may invalidate none
     */
    private record Pending(int command, long sessionId, Integer invalidateToken, CompletableFuture<Response> future) {
        Pending(int command, long sessionId, CompletableFuture<Response> future) {
            this(command, sessionId, null, future);
        }
    }

    /** The first descriptor's token of a READ or WRITE body with SMB2_CHANNEL_RDMA_V1_INVALIDATE, else null. */
    private static Integer invalidateToken(Smb2.Body body) {
        int channelAt;
        int infoAt;
        if (body.command() == Smb2.READ) {
            channelAt = 36;
            infoAt = 44;
        } else if (body.command() == Smb2.WRITE) {
            channelAt = 32;
            infoAt = 40;
        } else {
            return null;
        }
        ByteBuffer b = Smb2.le(body.bytes());
        if (body.bytes().length < infoAt + 4 || b.getInt(channelAt) != Smb2.CHANNEL_RDMA_V1_INVALIDATE) {
            return null;
        }
        int offset = (b.getShort(infoAt) & 0xFFFF) - Smb2.HEADER_SIZE;
        int length = b.getShort(infoAt + 2) & 0xFFFF;
        if (length < BufferDescriptor.BYTES || offset < 0 || offset + BufferDescriptor.BYTES > body.bytes().length) {
            return null;
        }
        return b.getInt(offset + 8);
    }

    /** The connection ended before the answer came. */
    public static final class ConnectionClosed extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient CloseReason reason;

        ConnectionClosed(CloseReason reason) {
            super("the connection closed: " + reason, null, false, false);
            this.reason = reason;
        }

        public CloseReason reason() {
            return reason;
        }
    }

    /** A request's answer: a response, or the end of the connection and its reason. */
    public record Outcome(Response response, CloseReason closed) {
    }

    /** A negotiate context of a NEGOTIATE response ([MS-SMB2] 2.2.4, 2.2.3.1). */
    public record Context(int type, byte[] data) {
    }

    /** The NEGOTIATE exchange. */
    public record Negotiated(Response response, int dialect, int securityMode, int capabilities,
            int maxTransactSize, int maxReadSize, int maxWriteSize, byte[] securityBuffer, List<Context> contexts) {
        public int status() {
            return response.status();
        }

        public Context context(int type) {
            return contexts.stream().filter(c -> c.type() == type).findFirst().orElse(null);
        }
    }

    /**
     * The logon.
     *
     * @param responses each SESSION_SETUP response, in order
     * @param sessionKey the session key the client computed (null for anonymous)
     * @param signingKey the signing key derived from it (null for anonymous)
     */
    public record Logon(List<Response> responses, long sessionId, byte[] sessionKey, byte[] signingKey) {
        public Response last() {
            return responses.get(responses.size() - 1);
        }

        public int status() {
            return last().status();
        }

        public int sessionFlags() {
            return last().u16(2);
        }
    }

    /** A CREATE response's fields ([MS-SMB2] 2.2.14). */
    public record Created(Response response, byte[] fileId, int createAction, long endOfFile, long allocationSize,
            int fileAttributes, long creationTime, long lastWriteTime) {
        public static Created of(Response r) {
            if (r.status() != Status.SUCCESS) {
                return new Created(r, null, -1, -1, -1, 0, 0, 0);
            }
            return new Created(r, r.slice(64 + 64, 16), r.i32(4), r.i64(48), r.i64(40), r.i32(56), r.i64(8), r.i64(24));
        }

        public int status() {
            return response.status();
        }
    }

    /**
     * An RDMA READ or WRITE: the response and the client's registrations, with their validity as
     * they were when the response arrived (before the client deregistered them).
     */
    public record RdmaResult(Response response, List<BufferDescriptor> descriptors, List<Boolean> validAtResponse,
            byte[] data) {
        public int status() {
            return response.status();
        }
    }

    private final SmbDirectConnection connection;
    private final Handler handler;
    private final Duration wait;
    private final Object lock = new Object();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    private final BlockingQueue<Response> unmatched = new LinkedBlockingQueue<>();
    private long nextMessageId;
    private long credits = 1;
    private long creditsGrantedTotal;
    /** The CreditRequest of each request; -1: 256 or the request's charge, whichever is more. */
    private volatile int creditRequest = -1;
    private long sessionId;
    private int treeId;
    private int dialect;
    private int maxReadSize;
    private int maxWriteSize;
    private int maxTransactSize;
    private byte[] connectionPreauth = new byte[64];
    private byte[] clientGuid = new byte[16];
    /** The signing key of each session logged on with an account ([MS-SMB2] 3.2.5.3.1). */
    private final Map<Long, byte[]> signingKeys = new ConcurrentHashMap<>();
    /** The commands whose requests the client signs when their session has a key. */
    private volatile java.util.Set<Integer> signedCommands = java.util.Set.of();

    private Smb2TestClient(SmbDirectConnection connection, Handler handler, Duration wait) {
        this.connection = connection;
        this.handler = handler;
        this.wait = wait;
        handler.client = this;
        Response r;
        while ((r = handler.early.poll()) != null) {
            received(r.bytes(), r.invalidated(), r.invalidatedToken());
        }
    }

    /** Connects over {@code transport} to the server at {@code server} and returns the client (nothing sent yet). */
    public static Smb2TestClient connect(SmbDirectTransport transport, InetSocketAddress server, Duration wait)
            throws Exception {
        Handler h = new Handler();
        SmbDirectConnection c = transport.connect(server, wait, h).toCompletableFuture()
                .get(wait.toMillis() + 1000, TimeUnit.MILLISECONDS);
        return new Smb2TestClient(c, h, wait);
    }

    public SmbDirectConnection connection() {
        return connection;
    }

    /** Completes with the reason when the connection ends. */
    public CompletableFuture<CloseReason> closed() {
        return handler.closed;
    }

    /** The reason the connection closed, waiting up to the client's wait for it; fails when it stays open. */
    public CloseReason awaitClosed() throws InterruptedException {
        try {
            return handler.closed.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the connection is still open after " + wait);
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }

    /** What was wrong with the responses so far (empty for a correct server). */
    public List<String> problems() {
        synchronized (problems) {
            return List.copyOf(problems);
        }
    }

    /** Responses whose MessageId matched no request pending (each is also a problem). */
    public BlockingQueue<Response> unmatched() {
        return unmatched;
    }

    public long sessionId() {
        return sessionId;
    }

    public void sessionId(long value) {
        sessionId = value;
    }

    public int treeId() {
        return treeId;
    }

    public void treeId(int value) {
        treeId = value;
    }

    public int dialect() {
        return dialect;
    }

    /** The ClientGuid of the last NEGOTIATE. */
    public byte[] clientGuid() {
        return clientGuid.clone();
    }

    public int maxReadSize() {
        return maxReadSize;
    }

    public int maxWriteSize() {
        return maxWriteSize;
    }

    public int maxTransactSize() {
        return maxTransactSize;
    }

    /** Credits granted and not yet spent. */
    public long credits() {
        synchronized (lock) {
            return credits;
        }
    }

    /** All credits the server granted on this connection. */
    public long creditsGrantedTotal() {
        synchronized (lock) {
            return creditsGrantedTotal;
        }
    }

    /** The MessageId the next request gets. */
    public long nextMessageId() {
        synchronized (lock) {
            return nextMessageId;
        }
    }

    /** The CreditRequest of the requests from now on (-1: 256 or the charge, whichever is more, as at the start). */
    public void creditRequest(int value) {
        creditRequest = value;
    }

    /** Takes {@code charge} credits and returns the first of the MessageIds they stand for. */
    public long takeMessageIds(int charge) {
        synchronized (lock) {
            if (charge > credits) {
                throw new IllegalStateException("a request charged " + charge + " credits, but only " + credits
                        + " are granted");
            }
            credits -= charge;
            long id = nextMessageId;
            nextMessageId += Math.max(1, charge);
            return id;
        }
    }

    // ---------------------------------------------------------------- sending and matching

    /** Frames {@code body} with the session and tree in use, sends it and returns the response. */
    public Response call(Smb2.Body body) throws Exception {
        return await(submit(body), "command " + body.command());
    }

    /** Frames {@code body} and sends it; the response completes the future. */
    public CompletableFuture<Response> submit(Smb2.Body body) {
        return submit(body, treeId, sessionId);
    }

    /** {@link #submit(Smb2.Body)} with a chosen TreeId and SessionId. */
    public CompletableFuture<Response> submit(Smb2.Body body, int tree, long session) {
        long id = takeMessageIds(body.creditCharge());
        byte[] m = frame(body, 0, 0, id, tree, session);
        CompletableFuture<Response> f = new CompletableFuture<>();
        pending.put(id, new Pending(body.command(), session, invalidateToken(body), f));
        sendBytes(m, -1, f);
        return f;
    }

    private byte[] frame(Smb2.Body body, int flags, int nextCommand, long messageId, int tree, long session) {
        ByteBuffer b = Smb2.le(Smb2.HEADER_SIZE + body.bytes().length);
        byte[] key = nextCommand == 0 && signedCommands.contains(body.command()) ? signingKeys.get(session) : null;
        int ask = creditRequest < 0 ? Math.max(256, body.creditCharge()) : creditRequest;
        Smb2.putHeader(b, body.command(), body.creditCharge(), ask,
                key == null ? flags : flags | Smb2.FLAGS_SIGNED, nextCommand, messageId, tree, session);
        b.put(body.bytes());
        if (key != null) {
            b.put(48, Smb3Signing.signature(key, b.array()));
        }
        return b.array();
    }

    /**
     * From now on the client signs its requests of {@code commands} ([MS-SMB2] 3.2.4.1.1; Linux
     * cifs signs TREE_CONNECT under 3.1.1) in sessions it logged on with an account. Compounded
     * requests are not signed.
     */
    public void sign(Integer... commands) {
        signedCommands = java.util.Set.of(commands);
    }

    /** The signing key of {@code session}, or null (guest, anonymous, or not logged on by this client). */
    public byte[] signingKey(long session) {
        return signingKeys.get(session);
    }

    private CompletableFuture<Response> send(byte[] message, long messageId, int command, long session,
            int invalidateToken) {
        CompletableFuture<Response> f = new CompletableFuture<>();
        pending.put(messageId, new Pending(command, session, f));
        sendBytes(message, invalidateToken, f);
        return f;
    }

    private void sendBytes(byte[] message, int invalidateToken, CompletableFuture<?> onFailure) {
        ByteBuffer buffer = ByteBuffer.wrap(message);
        smbdirect.api.SendCompletion done = (m, failure) -> {
            if (failure != null) {
                onFailure.completeExceptionally(failure);
            }
        };
        if (invalidateToken == -1) {
            connection.send(buffer, done);
        } else {
            connection.sendWithInvalidate(buffer, invalidateToken, done);
        }
        CloseReason r = handler.closed.getNow(null);
        if (r != null) {
            onFailure.completeExceptionally(new ConnectionClosed(r));
        }
    }

    /**
     * Sends the requests as one compounded message ([MS-SMB2] 3.2.4.1.4): each 8-byte aligned and
     * chained by NextCommand; with {@code related}, the second and later carry
     * SMB2_FLAGS_RELATED_OPERATIONS (and should name the file {@link Smb2#RELATED_FILE_ID}).
     */
    public List<CompletableFuture<Response>> compound(boolean related, Smb2.Body... bodies) {
        List<byte[]> parts = new ArrayList<>();
        List<CompletableFuture<Response>> futures = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        for (Smb2.Body b : bodies) {
            ids.add(takeMessageIds(b.creditCharge()));
        }
        int total = 0;
        for (int i = 0; i < bodies.length; i++) {
            boolean last = i == bodies.length - 1;
            int size = Smb2.HEADER_SIZE + bodies[i].bytes().length;
            int padded = last ? size : Smb2.align8(size);
            byte[] m = frame(bodies[i], related && i > 0 ? Smb2.FLAGS_RELATED_OPERATIONS : 0, last ? 0 : padded,
                    ids.get(i), treeId, sessionId);
            parts.add(Arrays.copyOf(m, padded));
            total += padded;
        }
        ByteBuffer all = ByteBuffer.allocate(total);
        parts.forEach(all::put);
        for (int i = 0; i < bodies.length; i++) {
            CompletableFuture<Response> f = new CompletableFuture<>();
            pending.put(ids.get(i), new Pending(bodies[i].command(), sessionId, f));
            futures.add(f);
        }
        sendBytes(all.array(), -1, futures.get(0));
        return futures;
    }

    /**
     * Sends {@code message} as it is (a malformed request) and waits for the response with
     * MessageId {@code expectMessageId} and Command {@code expectCommand}, or for the end of the
     * connection.
     */
    public Outcome sendRaw(byte[] message, long expectMessageId, int expectCommand) throws Exception {
        CompletableFuture<Response> f = new CompletableFuture<>();
        Integer token = message.length > Smb2.HEADER_SIZE
                ? invalidateToken(new Smb2.Body(expectCommand, Arrays.copyOfRange(message, Smb2.HEADER_SIZE,
                        message.length)))
                : null;
        pending.put(expectMessageId, new Pending(expectCommand, Smb2.le(message).getLong(40), token, f));
        sendBytes(message, -1, f);
        return outcome(f);
    }

    /** Sends {@code message} as it is and waits for whatever comes first: a response or the end of the connection. */
    public Outcome sendRawUnmatched(byte[] message) throws Exception {
        CompletableFuture<Void> sent = new CompletableFuture<>();
        sendBytes(message, -1, sent);
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            Response r = unmatched.poll(10, TimeUnit.MILLISECONDS);
            if (r != null) {
                return new Outcome(r, null);
            }
            CloseReason c = handler.closed.getNow(null);
            if (c != null) {
                return new Outcome(null, c);
            }
        }
        throw new AssertionError("neither a response nor the end of the connection within " + wait);
    }

    /** Waits for {@code f}; an {@link AssertionError} when the connection ends first or nothing comes in time. */
    public Response await(CompletableFuture<Response> f, String what) throws Exception {
        Outcome o = outcome(f);
        if (o.response() == null) {
            throw new AssertionError(what + ": no response; the connection closed: " + o.closed());
        }
        return o.response();
    }

    /** Waits for {@code f} or the end of the connection. */
    public Outcome outcome(CompletableFuture<Response> f) throws Exception {
        try {
            CompletableFuture.anyOf(f, handler.closed).get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("neither a response nor the end of the connection within " + wait
                    + (problems.isEmpty() ? "" : "; problems: " + problems()));
        } catch (ExecutionException e) {
            // the send failed or the connection closed: told below
        }
        if (f.isDone() && !f.isCompletedExceptionally()) {
            Response r = f.join();
            String p = problem(r);
            if (p != null) {
                throw new AssertionError(p);
            }
            return new Outcome(r, null);
        }
        CloseReason reason;
        try {
            reason = handler.closed.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            try {
                f.join();
            } catch (java.util.concurrent.CompletionException c) {
                throw new AssertionError("the request failed and the connection stays open: " + c.getCause(),
                        c.getCause());
            }
            throw new AssertionError("unreachable");
        }
        return new Outcome(null, reason);
    }

    private String problem(Response r) {
        synchronized (problems) {
            for (String p : problems) {
                if (p.startsWith("MessageId " + r.messageId() + ":")) {
                    return p;
                }
            }
        }
        return null;
    }

    private void failPending(CloseReason reason) {
        for (Pending p : pending.values()) {
            p.future().completeExceptionally(new ConnectionClosed(reason));
        }
    }

    /** [MS-SMB2] 3.2.5.1: one received message, possibly several compounded responses. */
    private void received(byte[] message, boolean invalidated, int token) {
        int at = 0;
        while (true) {
            if (message.length - at < Smb2.HEADER_SIZE + 2) {
                problems.add("a response of " + (message.length - at) + " bytes at offset " + at
                        + ": shorter than a header and a body");
                return;
            }
            ByteBuffer b = Smb2.le(message);
            int next = b.getInt(at + 20);
            int end = next == 0 ? message.length : at + next;
            if (next != 0 && (next % 8 != 0 || end > message.length - Smb2.HEADER_SIZE)) {
                problems.add("a compounded response at offset " + at + " with NextCommand " + next
                        + " (the message has " + message.length + " bytes)");
                return;
            }
            Response r = new Response(Arrays.copyOfRange(message, at, end), invalidated, token);
            check(r);
            if (next == 0) {
                return;
            }
            at = end;
        }
    }

    private void check(Response r) {
        synchronized (lock) {
            credits += r.creditResponse();
            creditsGrantedTotal += r.creditResponse();
        }
        long id = r.messageId();
        Pending p = pending.get(id);
        List<String> wrong = new ArrayList<>();
        ByteBuffer b = r.le();
        if (b.getInt(0) != Smb2.PROTOCOL_ID) {
            wrong.add(String.format("ProtocolId 0x%08X", b.getInt(0)));
        }
        if ((b.getShort(4) & 0xFFFF) != Smb2.HEADER_SIZE) {
            wrong.add("header StructureSize " + (b.getShort(4) & 0xFFFF));
        }
        if ((r.flags() & Smb2.FLAGS_SERVER_TO_REDIR) == 0) {
            wrong.add(String.format("Flags 0x%08X without SMB2_FLAGS_SERVER_TO_REDIR", r.flags()));
        }
        if (p == null) {
            problems.add("MessageId " + id + ": no request with that MessageId is waiting (" + r + ")");
            unmatched.add(r);
            return;
        }
        if (r.command() != p.command()) {
            wrong.add("Command " + r.command() + " answers a request of command " + p.command());
        }
        if (p.command() != Smb2.NEGOTIATE && p.sessionId() != 0 && r.sessionId() != p.sessionId()) {
            wrong.add("SessionId 0x" + Long.toHexString(r.sessionId()) + " answers a request of session 0x"
                    + Long.toHexString(p.sessionId()));
        }
        byte[] key = signingKeys.get(r.sessionId());
        if ((r.flags() & Smb2.FLAGS_SIGNED) != 0 && key != null
                && !Arrays.equals(Smb3Signing.signature(key, r.bytes()), r.signature())) {
            wrong.add("the signature does not match the session's signing key (3.2.5.1.3)");
        }
        if (r.invalidated() && (p.invalidateToken() == null || p.invalidateToken() != r.invalidatedToken())) {
            wrong.add("the response came as a Send with Invalidate of token 0x"
                    + Integer.toHexString(r.invalidatedToken()) + ", which the request did not offer ("
                    + (p.invalidateToken() == null ? "no SMB2_CHANNEL_RDMA_V1_INVALIDATE" : "its first token 0x"
                            + Integer.toHexString(p.invalidateToken())) + ")");
        }
        int status = r.status();
        if (status == Status.PENDING && (r.flags() & Smb2.FLAGS_ASYNC_COMMAND) != 0) {
            return; // an interim response: the final one follows under the same MessageId (3.2.5.1.5)
        }
        int expected = r.command() < RESPONSE_STRUCTURE_SIZE.length ? RESPONSE_STRUCTURE_SIZE[r.command()] : -1;
        boolean normalBody = status == Status.SUCCESS || status == Status.BUFFER_OVERFLOW
                || (status == Status.MORE_PROCESSING_REQUIRED && r.command() == Smb2.SESSION_SETUP);
        int size = r.bodyStructureSize();
        if (normalBody && size != expected) {
            wrong.add("body StructureSize " + size + ", not " + expected + " of command " + r.command());
        } else if (!normalBody && size != 9) {
            wrong.add("error response (" + Status.name(status) + ") with body StructureSize " + size + ", not 9");
        }
        if (!wrong.isEmpty()) {
            problems.add("MessageId " + id + ": " + String.join("; ", wrong));
        }
        pending.remove(id);
        p.future().complete(r);
    }

    // ---------------------------------------------------------------- NEGOTIATE and logon

    /** NEGOTIATE offering 3.0.2 and 3.1.1 as Linux cifs does with vers=3 (SecurityMode signing enabled). */
    public Negotiated negotiate() throws Exception {
        return negotiate(new int[] {Smb2.DIALECT_300, Smb2.DIALECT_302, Smb2.DIALECT_311}, Smb2.SIGNING_ENABLED);
    }

    /** NEGOTIATE with {@code dialects} and {@code securityMode}, the capabilities of an SMB 3 client. */
    public Negotiated negotiate(int[] dialects, int securityMode) throws Exception {
        byte[] guid = new byte[16];
        byte[] salt = new byte[32];
        SecureRandom random = new SecureRandom();
        random.nextBytes(guid);
        random.nextBytes(salt);
        byte[] body = Smb2.negotiate(dialects, securityMode, CLIENT_CAPABILITIES, guid, salt, false);
        return negotiate(body);
    }

    /** NEGOTIATE with the body {@code body} (its ClientGuid and dialects as given). */
    public Negotiated negotiate(byte[] body) throws Exception {
        clientGuid = java.util.Arrays.copyOfRange(body, 12, 28);
        long id = takeMessageIds(1);
        byte[] request = frame(new Smb2.Body(Smb2.NEGOTIATE, body), 0, 0, id, 0, 0);
        Response r = await(send(request, id, Smb2.NEGOTIATE, 0, -1), "NEGOTIATE");
        if (r.status() != Status.SUCCESS) {
            return new Negotiated(r, 0, 0, 0, 0, 0, 0, new byte[0], List.of());
        }
        dialect = r.u16(4);
        maxTransactSize = r.i32(28);
        maxReadSize = r.i32(32);
        maxWriteSize = r.i32(36);
        byte[] security = r.slice(r.u16(56), r.u16(58));
        List<Context> contexts = new ArrayList<>();
        if (dialect == Smb2.DIALECT_311) {
            connectionPreauth = Smb3Signing.preauth(Smb3Signing.preauth(new byte[64], request), r.bytes());
            int count = r.u16(6);
            int at = r.i32(60);
            for (int i = 0; i < count; i++) {
                at = Smb2.align8(at);
                ByteBuffer c = r.le();
                if (at + 8 > r.bytes().length) {
                    throw new AssertionError("NEGOTIATE response: negotiate context " + i + " at " + at
                            + " beyond the message's " + r.bytes().length + " bytes");
                }
                int type = c.getShort(at) & 0xFFFF;
                int len = c.getShort(at + 2) & 0xFFFF;
                contexts.add(new Context(type, r.slice(at + 8, len)));
                at += 8 + len;
            }
        }
        return new Negotiated(r, dialect, r.u16(2), r.i32(24), r.i32(28), maxReadSize, maxWriteSize, security,
                contexts);
    }

    /**
     * Logs on as {@code user} / {@code password} with NTLMv2 (two SESSION_SETUPs, raw NTLMSSP); the
     * session is used from then on when it succeeds.
     */
    public Logon logon(String user, String password) throws Exception {
        return logon(user, password, Smb2.SIGNING_ENABLED);
    }

    /** {@link #logon(String, String)} with the SESSION_SETUP SecurityMode {@code securityMode}. */
    public Logon logon(String user, String password, int securityMode) throws Exception {
        return logon(user, password, securityMode, false);
    }

    /** {@link #logon(String, String)} with NTLMSSP wrapped in SPNEGO ([RFC 4178]), as Windows sends it. */
    public Logon logonSpnego(String user, String password) throws Exception {
        return logon(user, password, Smb2.SIGNING_ENABLED, true);
    }

    private Logon logon(String user, String password, int securityMode, boolean spnego) throws Exception {
        List<Response> responses = new ArrayList<>();
        byte[] preauth = connectionPreauth;
        Smb2.Body first = Smb2.sessionSetup(securityMode,
                spnego ? Spnego.initWithNtlm(Ntlmv2.negotiate()) : Ntlmv2.negotiate());
        long id = takeMessageIds(1);
        byte[] req = frame(first, 0, 0, id, 0, 0);
        preauth = Smb3Signing.preauth(preauth, req);
        Response r = await(send(req, id, Smb2.SESSION_SETUP, 0, -1), "SESSION_SETUP 1");
        responses.add(r);
        if (r.status() != Status.MORE_PROCESSING_REQUIRED) {
            return new Logon(responses, r.sessionId(), null, null);
        }
        preauth = Smb3Signing.preauth(preauth, r.bytes());
        long session = r.sessionId();
        byte[] securityBuffer = r.slice(r.u16(4), r.u16(6));
        Ntlmv2.Challenge challenge = Ntlmv2.Challenge.of(spnego ? Spnego.responseToken(securityBuffer)
                : securityBuffer);
        byte[] token;
        byte[] sessionKey = null;
        if (user == null) {
            token = Ntlmv2.anonymous();
        } else {
            byte[] clientChallenge = new byte[8];
            byte[] random = new byte[16];
            new SecureRandom().nextBytes(clientChallenge);
            new SecureRandom().nextBytes(random);
            long filetime = (System.currentTimeMillis() + 11_644_473_600_000L) * 10_000L;
            Ntlmv2.Authenticate a = Ntlmv2.authenticate(challenge, user, "", password, clientChallenge, filetime,
                    random);
            token = a.token();
            sessionKey = a.sessionKey();
        }
        id = takeMessageIds(1);
        req = frame(Smb2.sessionSetup(securityMode, spnego ? Spnego.response(token) : token), 0, 0, id, 0, session);
        preauth = Smb3Signing.preauth(preauth, req);
        r = await(send(req, id, Smb2.SESSION_SETUP, session, -1), "SESSION_SETUP 2");
        responses.add(r);
        byte[] signingKey = null;
        if (r.status() == Status.SUCCESS) {
            sessionId = session;
            if (sessionKey != null && (r.u16(2) & (Smb2.SESSION_FLAG_IS_GUEST | Smb2.SESSION_FLAG_IS_NULL)) == 0) {
                signingKey = Smb3Signing.signingKey(dialect, sessionKey, preauth);
                signingKeys.put(session, signingKey);
            }
        }
        return new Logon(responses, session, sessionKey, signingKey);
    }

    /** An anonymous logon (NTLMSSP with an empty user and no NT response). */
    public Logon logonAnonymous() throws Exception {
        return logon(null, null, Smb2.SIGNING_ENABLED);
    }

    /** TREE_CONNECT to {@code path}; on success the tree is used from then on. */
    public Response treeConnect(String path) throws Exception {
        Response r = call(Smb2.treeConnect(path));
        if (r.status() == Status.SUCCESS) {
            treeId = r.treeId();
        }
        return r;
    }

    /** NEGOTIATE, logon and tree connect, each required to succeed. */
    public Smb2TestClient mount(String user, String password, String sharePath) throws Exception {
        expect(Status.SUCCESS, negotiate().response(), "NEGOTIATE");
        Logon l = user == null ? logonAnonymous() : logon(user, password);
        expect(Status.SUCCESS, l.last(), "SESSION_SETUP");
        expect(Status.SUCCESS, treeConnect(sharePath), "TREE_CONNECT " + sharePath);
        return this;
    }

    public Response treeDisconnect() throws Exception {
        return call(Smb2.empty(Smb2.TREE_DISCONNECT));
    }

    public Response logoff() throws Exception {
        return call(Smb2.empty(Smb2.LOGOFF));
    }

    public Response echo() throws Exception {
        return call(Smb2.empty(Smb2.ECHO));
    }

    // ---------------------------------------------------------------- files

    public Created create(String name, int access, int attributes, int disposition, int options) throws Exception {
        return Created.of(call(Smb2.create(name, access, attributes, Smb2.SHARE_ALL, disposition, options)));
    }

    /** Opens or creates a file for reading and writing; fails unless it succeeds. */
    public byte[] openFile(String name, int disposition) throws Exception {
        Created c = create(name, Smb2.READ_WRITE, Smb2.FILE_ATTRIBUTE_NORMAL, disposition,
                Smb2.FILE_NON_DIRECTORY_FILE);
        expect(Status.SUCCESS, c.response(), "CREATE " + name);
        return c.fileId();
    }

    /** Opens a directory (the share's root for ""); fails unless it succeeds. */
    public byte[] openDirectory(String name, int disposition) throws Exception {
        Created c = create(name, Smb2.READ_ONLY, Smb2.FILE_ATTRIBUTE_DIRECTORY, disposition,
                Smb2.FILE_DIRECTORY_FILE);
        expect(Status.SUCCESS, c.response(), "CREATE directory " + name);
        return c.fileId();
    }

    public Response close(byte[] fileId) throws Exception {
        return call(Smb2.close(fileId, 0));
    }

    public Response closeWithAttributes(byte[] fileId) throws Exception {
        return call(Smb2.close(fileId, Smb2.CLOSE_FLAG_POSTQUERY_ATTRIB));
    }

    public Response flush(byte[] fileId) throws Exception {
        return call(Smb2.flush(fileId));
    }

    public Response writeInline(byte[] fileId, long offset, byte[] data) throws Exception {
        return call(Smb2.writeInline(fileId, offset, data));
    }

    /** READ with the data in the response; the response (its data: {@link #readData}). */
    public Response readInline(byte[] fileId, long offset, int length) throws Exception {
        return call(Smb2.readInline(fileId, offset, length, 0));
    }

    /** The data of a successful READ response ([MS-SMB2] 2.2.20: DataOffset, DataLength). */
    public static byte[] readData(Response r) {
        return r.slice(r.u8(2), r.i32(4));
    }

    /**
     * WRITE of {@code data} that the server RDMA-Reads from buffers the client registered
     * ({@link RemoteAccess#READ}), split over {@code segments} registrations (one descriptor each).
     * With {@link Smb2#CHANNEL_RDMA_V1_INVALIDATE} the response should come as a Send with
     * Invalidate of the first descriptor's token.
     */
    public RdmaResult writeRdma(byte[] fileId, long offset, byte[] data, int channel, int segments) throws Exception {
        List<RegisteredBuffer> regs = register(data.length, segments, RemoteAccess.READ);
        try {
            int at = 0;
            for (RegisteredBuffer reg : regs) {
                ByteBuffer b = reg.buffer();
                b.put(data, at, reg.length());
                at += reg.length();
            }
            List<BufferDescriptor> d = descriptors(regs);
            Response r = call(Smb2.writeRdma(fileId, offset, data.length, channel, d));
            return new RdmaResult(r, d, regs.stream().map(RegisteredBuffer::isValid).toList(), null);
        } finally {
            deregister(regs);
        }
    }

    /**
     * READ of {@code length} bytes that the server RDMA-Writes into buffers the client registered
     * ({@link RemoteAccess#WRITE}), split over {@code segments} registrations. The response's
     * DataRemaining says how many bytes came ([MS-SMB2] 2.2.20), as Linux cifs reads it.
     */
    public RdmaResult readRdma(byte[] fileId, long offset, int length, int channel, int segments) throws Exception {
        List<RegisteredBuffer> regs = register(length, segments, RemoteAccess.WRITE);
        try {
            List<BufferDescriptor> d = descriptors(regs);
            Response r = call(Smb2.readRdma(fileId, offset, length, channel, d));
            List<Boolean> valid = regs.stream().map(RegisteredBuffer::isValid).toList();
            byte[] data = null;
            if (r.status() == Status.SUCCESS) {
                // [MS-SMB2] 2.2.20: DataRemaining counts the bytes sent on the channel; none travel in the message
                int n = r.i32(8);
                if (r.i32(4) != 0) {
                    throw new AssertionError("READ over RDMA: DataLength " + r.i32(4) + " in the message, expected 0");
                }
                if (n < 0 || n > length) {
                    throw new AssertionError("READ over RDMA: DataRemaining " + n + " for a " + length
                            + "-byte request");
                }
                data = new byte[n];
                int at = 0;
                for (RegisteredBuffer reg : regs) {
                    int k = Math.min(reg.length(), n - at);
                    if (k <= 0) {
                        break;
                    }
                    reg.buffer().get(data, at, k);
                    at += k;
                }
            }
            return new RdmaResult(r, d, valid, data);
        } finally {
            deregister(regs);
        }
    }

    /** {@code segments} direct buffers of together {@code length} bytes, each registered with {@code access}. */
    public List<RegisteredBuffer> register(int length, int segments, RemoteAccess access) throws Exception {
        List<RegisteredBuffer> regs = new ArrayList<>();
        int per = (length + segments - 1) / segments;
        for (int at = 0; at < length; at += per) {
            int n = Math.min(per, length - at);
            regs.add(connection.register(ByteBuffer.allocateDirect(n), access).toCompletableFuture()
                    .get(wait.toMillis(), TimeUnit.MILLISECONDS));
        }
        return regs;
    }

    public static List<BufferDescriptor> descriptors(List<RegisteredBuffer> regs) {
        List<BufferDescriptor> d = new ArrayList<>();
        regs.forEach(r -> d.addAll(r.descriptors()));
        return d;
    }

    public void deregister(List<RegisteredBuffer> regs) throws Exception {
        for (RegisteredBuffer r : regs) {
            if (connection.isOpen()) {
                r.deregister().toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /**
     * Writes all of {@code data} at {@code offset}: requests of at most MaxWriteSize bytes and at
     * most the credits held allow, RDMA through {@code channel} (or inline with
     * {@link Smb2#CHANNEL_NONE}); fails unless every WRITE succeeds and counts all its bytes.
     */
    public void writeAll(byte[] fileId, long offset, byte[] data, int channel, int segments) throws Exception {
        int at = 0;
        while (at < data.length) {
            int n = Math.min(data.length - at, chunk(maxWriteSize, channel));
            byte[] part = Arrays.copyOfRange(data, at, at + n);
            Response r = channel == Smb2.CHANNEL_NONE ? writeInline(fileId, offset + at, part)
                    : writeRdma(fileId, offset + at, part, channel, segments).response();
            expect(Status.SUCCESS, r, "WRITE of " + n + " bytes at " + (offset + at));
            if (r.i32(4) != n) {
                throw new AssertionError("WRITE of " + n + " bytes at " + (offset + at) + ": Count " + r.i32(4));
            }
            at += n;
        }
    }

    /**
     * Reads {@code length} bytes at {@code offset} in requests as {@link #writeAll} writes them; fails
     * unless each succeeds.
     */
    public byte[] readAll(byte[] fileId, long offset, int length, int channel, int segments) throws Exception {
        byte[] out = new byte[length];
        int at = 0;
        while (at < length) {
            int n = Math.min(length - at, chunk(maxReadSize, channel));
            byte[] got;
            if (channel == Smb2.CHANNEL_NONE) {
                Response r = readInline(fileId, offset + at, n);
                expect(Status.SUCCESS, r, "READ of " + n + " bytes at " + (offset + at));
                got = readData(r);
            } else {
                RdmaResult r = readRdma(fileId, offset + at, n, channel, segments);
                expect(Status.SUCCESS, r.response(), "READ of " + n + " bytes at " + (offset + at));
                got = r.data();
            }
            if (got.length == 0) {
                throw new AssertionError("READ at " + (offset + at) + ": no data before the requested end");
            }
            System.arraycopy(got, 0, out, at, got.length);
            at += got.length;
        }
        return out;
    }

    /**
     * The largest request: MaxReadSize or MaxWriteSize, what the credits held allow, and inline 256
     * KiB (the data travels in the message).
     */
    private int chunk(int max, int channel) {
        long byCredits = Math.max(1, credits()) * 65536L;
        long limit = channel == Smb2.CHANNEL_NONE ? 256 * 1024 : 8L << 20;
        return (int) Math.max(1, Math.min(Math.min(max, byCredits), limit));
    }

    public Response queryInfo(byte[] fileId, int infoType, int infoClass, int outputBufferLength) throws Exception {
        return call(Smb2.queryInfo(fileId, infoType, infoClass, outputBufferLength, 0));
    }

    /** The output buffer of a QUERY_INFO, QUERY_DIRECTORY response ([MS-SMB2] 2.2.38, 2.2.34). */
    public static byte[] outputBuffer(Response r) {
        return r.slice(r.u16(2), r.i32(4));
    }

    public Response setInfo(byte[] fileId, int infoType, int infoClass, byte[] data) throws Exception {
        return call(Smb2.setInfo(fileId, infoType, infoClass, data));
    }

    public Response queryDirectory(byte[] fileId, int infoClass, int flags, String pattern, int outputBufferLength)
            throws Exception {
        return call(Smb2.queryDirectory(fileId, infoClass, flags, pattern, outputBufferLength));
    }

    /**
     * Every name of a directory listing with FileIdBothDirectoryInformation (what cifs asks for),
     * QUERY_DIRECTORY repeated until STATUS_NO_MORE_FILES.
     */
    public List<String> list(byte[] directory, String pattern) throws Exception {
        List<String> names = new ArrayList<>();
        int flags = Smb2.RESTART_SCANS;
        while (true) {
            Response r = queryDirectory(directory, Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION, flags, pattern, 65536);
            flags = 0;
            if (r.status() == Status.NO_MORE_FILES || (r.status() == Status.NO_SUCH_FILE && names.isEmpty())) {
                return names;
            }
            expect(Status.SUCCESS, r, "QUERY_DIRECTORY");
            names.addAll(directoryNames(outputBuffer(r), Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION));
            if (names.size() > 100_000) {
                throw new AssertionError("QUERY_DIRECTORY keeps answering: " + names.size() + " names");
            }
        }
    }

    /**
     * The names in a QUERY_DIRECTORY output buffer, checking its chain ([MS-FSCC] 2.4: each entry
     * 8-byte aligned, NextEntryOffset 0 on the last).
     */
    public static List<String> directoryNames(byte[] buffer, int infoClass) {
        int nameLengthAt;
        int nameAt;
        switch (infoClass) {
            case Smb2.FILE_ID_BOTH_DIRECTORY_INFORMATION -> {
                nameLengthAt = 60;
                nameAt = 104;
            }
            case Smb2.FILE_BOTH_DIRECTORY_INFORMATION -> {
                nameLengthAt = 60;
                nameAt = 94;
            }
            case Smb2.FILE_ID_FULL_DIRECTORY_INFORMATION -> {
                nameLengthAt = 60;
                nameAt = 80;
            }
            case Smb2.FILE_FULL_DIRECTORY_INFORMATION -> {
                nameLengthAt = 60;
                nameAt = 68;
            }
            case Smb2.FILE_DIRECTORY_INFORMATION -> {
                nameLengthAt = 60;
                nameAt = 64;
            }
            case Smb2.FILE_NAMES_INFORMATION -> {
                nameLengthAt = 8;
                nameAt = 12;
            }
            default -> throw new IllegalArgumentException("class " + infoClass);
        }
        List<String> names = new ArrayList<>();
        ByteBuffer b = Smb2.le(buffer);
        int at = 0;
        while (true) {
            if (at % 8 != 0 || at + nameAt > buffer.length) {
                throw new AssertionError("directory entry at " + at + " of a " + buffer.length
                        + "-byte buffer: misaligned or cut");
            }
            int next = b.getInt(at);
            int len = b.getInt(at + nameLengthAt);
            if (len < 0 || at + nameAt + len > buffer.length) {
                throw new AssertionError("directory entry at " + at + ": FileNameLength " + len + " beyond the buffer");
            }
            names.add(new String(buffer, at + nameAt, len, StandardCharsets.UTF_16LE));
            if (next == 0) {
                return names;
            }
            if (next < nameAt) {
                throw new AssertionError("directory entry at " + at + ": NextEntryOffset " + next);
            }
            at += next;
        }
    }

    public Response ioctl(int ctlCode, byte[] fileId, byte[] input, int maxOutput) throws Exception {
        return call(Smb2.ioctl(ctlCode, fileId, input, maxOutput, Smb2.IOCTL_IS_FSCTL));
    }

    // ---------------------------------------------------------------- checks

    /** Fails unless {@code r} has {@code status}. */
    public static Response expect(int status, Response r, String what) {
        if (r.status() != status) {
            throw new AssertionError(what + ": " + Status.name(r.status()) + ", expected " + Status.name(status));
        }
        return r;
    }

    /** Closes the connection and waits for it to be released. */
    @Override
    public void close() throws Exception {
        try {
            connection.close().toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            // already closed
        }
    }

    @Override
    public String toString() {
        return "Smb2TestClient[" + connection.localAddress() + " -> " + connection.peerAddress() + ", dialect 0x"
                + Integer.toHexString(dialect) + ", session 0x" + Long.toHexString(sessionId) + ", tree " + treeId
                + "]";
    }
}
