package smbdirect.rdma.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.WorkRequestType;

/**
 * The RDMA provider SPI contract ({@code smbdirect.api.rdma}: reliable-connected semantics,
 * callback rules, memory registration), checked through the SPI only. A provider's test tree
 * subclasses it and supplies a {@link RdmaTckFixture}; a test the provider cannot pass because of
 * a documented gap is overridden in the subclass with both {@code @Test} and
 * {@code @Disabled("reason")} (an override without {@code @Test} would silently stop being a
 * test). Tests that depend on a capability the provider reports state it as an assumption.
 *
 * <p>Every test ends with the fixture's leak check, after the test's endpoints and listeners were
 * closed, and checks that no endpoint saw concurrent callbacks or a callback after
 * {@code onDisconnected}.
 */
public abstract class RdmaProviderContractTest {

    protected static final int PORT = 4450;
    protected static final int RECEIVE_SIZE = 1024;
    private static final byte[] DATA = {10, 11, 12, 13, 14, 15, 16, 17};

    /** Creates the fixture of one test. */
    protected abstract RdmaTckFixture createFixture() throws Exception;

    protected RdmaTckFixture f;
    private final Object signal = new Object();
    private final List<RdmaEndpoint> endpoints = new ArrayList<>();
    private final List<RdmaListener> listeners = new ArrayList<>();
    private final List<TckRecorder> recorders = java.util.Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void createTheFixture() throws Exception {
        f = createFixture();
    }

    @AfterEach
    void closeEverythingAndCheckTheCallbackRules() throws Exception {
        if (f == null) {
            return; // the fixture could not be created: its exception is the test's outcome
        }
        synchronized (endpoints) {
            for (RdmaEndpoint ep : endpoints) {
                ep.close();
            }
        }
        for (RdmaListener l : listeners) {
            l.close();
        }
        f.settle();
        f.close();
        for (TckRecorder r : new ArrayList<>(recorders)) {
            assertFalse(r.concurrentCallbacks(), "callbacks of one endpoint ran concurrently: " + r.events());
            assertFalse(r.reentered(), "a callback ran inside another although delivery is not inline: " + r.events());
            assertEquals(0, r.callbacksAfterDisconnect(), "callbacks after onDisconnected: " + r.events());
        }
    }

    // ------------------------------------------------------------------ helpers

    protected TckRecorder recorder() {
        TckRecorder r = new TckRecorder(signal, f.inlineCallbacks());
        recorders.add(r);
        return r;
    }

    protected <E extends RdmaEndpoint> E track(E ep) {
        synchronized (endpoints) {
            endpoints.add(ep);
        }
        return ep;
    }

    /** Waits (bounded by the fixture's timeout, letting the providers progress) until {@code condition} holds. */
    protected void await(String what, BooleanSupplier condition) {
        await(() -> what, condition);
    }

    /**
     * As {@link #await(String, BooleanSupplier)}, with the description of what was awaited taken when
     * the wait fails, so that it can say what the recorders saw by then.
     */
    protected void await(Supplier<String> what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + f.timeout().toNanos();
        while (true) {
            f.settle();
            if (condition.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + f.timeout() + " waiting for " + what.get());
            }
            synchronized (signal) {
                try {
                    signal.wait(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    fail("interrupted waiting for " + what.get());
                }
            }
        }
    }

    protected void awaitCompletions(TckRecorder r, int count) {
        await(count + " completions (have " + r.completions().size() + ")", () -> r.completions().size() >= count);
    }

    protected void awaitDisconnected(TckRecorder r) {
        await("onDisconnected (events " + r.events() + ")", () -> r.cause() != null);
    }

    protected static EnumSet<MemoryAccess> access(MemoryAccess... rights) {
        EnumSet<MemoryAccess> set = EnumSet.noneOf(MemoryAccess.class);
        for (MemoryAccess a : rights) {
            set.add(a);
        }
        return set;
    }

    protected static MemoryRegion region(RdmaEndpoint ep, byte[] content, MemoryAccess... rights)
            throws RdmaException {
        ByteBuffer b = ByteBuffer.allocateDirect(content.length);
        b.put(content).flip();
        return ep.register(b, access(rights));
    }

    protected static byte[] bytes(MemoryRegion r, int offset, int length) {
        byte[] out = new byte[length];
        r.buffer().get(offset, out);
        return out;
    }

    protected static List<MemoryRegion> postReceives(RdmaEndpoint ep, int count, long firstWrId)
            throws RdmaException {
        List<MemoryRegion> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            MemoryRegion r = ep.register(ByteBuffer.allocateDirect(RECEIVE_SIZE), access(MemoryAccess.LOCAL_WRITE));
            ep.postReceive(r, 0, RECEIVE_SIZE, firstWrId + i);
            out.add(r);
        }
        return out;
    }

    private static ConnectParameters params(int... privateData) {
        byte[] data = new byte[privateData.length];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) privateData[i];
        }
        return new ConnectParameters(ByteBuffer.wrap(data), 4, 4);
    }

    /** A listener that records requests and, when accepting, answers each with an endpoint. */
    protected final class Server implements RdmaListenHandler {
        final boolean accepting;
        final int receives;
        final ConnectParameters acceptParameters;
        final List<RdmaConnectRequest> requests = new ArrayList<>();
        /** When each request arrived (System.nanoTime) and the recorder of its endpoint, in arrival order. */
        final List<Arrival> arrivals = new ArrayList<>();
        final TckRecorder recorder = recorder();
        volatile RdmaEndpoint endpoint;
        volatile List<MemoryRegion> receiveRegions = List.of();
        volatile String failure;
        RdmaListener listener;

        Server(boolean accepting, int receives, ConnectParameters acceptParameters) {
            this.accepting = accepting;
            this.receives = receives;
            this.acceptParameters = acceptParameters;
        }

        Server listen(int port) throws RdmaException {
            listener = f.serverProvider().listen(f.serverAddress(port), this);
            listeners.add(listener);
            return this;
        }

        @Override
        public void onConnectRequest(RdmaConnectRequest request) {
            boolean first;
            TckRecorder own = recorder;
            synchronized (this) {
                requests.add(request);
                first = requests.size() == 1;
                if (!first) {
                    own = recorder();
                }
                arrivals.add(new Arrival(System.nanoTime(), own));
            }
            if (accepting) {
                try {
                    // the first connection is the one the test looks at; later ones get their own recorder
                    RdmaEndpoint ep = track(request.createEndpoint(new EndpointSettings(16, 16), own));
                    if (!first) {
                        postReceives(ep, receives, 1000);
                        ep.accept(acceptParameters);
                        return;
                    }
                    receiveRegions = postReceives(ep, receives, 1000);
                    endpoint = ep;
                    ep.accept(acceptParameters);
                } catch (RdmaException | RuntimeException e) {
                    failure = e.toString();
                }
            }
            synchronized (signal) {
                signal.notifyAll();
            }
        }

        @Override
        public void onListenerFailed(DisconnectCause cause, String detail) {
            failure = "listener failed: " + cause + " " + detail;
        }

        synchronized List<RdmaConnectRequest> requests() {
            return new ArrayList<>(requests);
        }

        /** For a failure message: when the requests arrived after {@code sinceNanos}, and what the later endpoints saw. */
        synchronized String laterRequests(long sinceNanos) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < arrivals.size(); i++) {
                Arrival a = arrivals.get(i);
                b.append(i == 0 ? "" : ", ").append("request ").append(i + 1).append(" at ")
                        .append((a.nanos() - sinceNanos) / 1_000_000).append(" ms");
                if (i > 0) {
                    b.append(" (its endpoint's events ").append(a.recorder().events()).append(')');
                }
            }
            return b.toString();
        }
    }

    /** A connection request as the server saw it: when it arrived, and the recorder of its endpoint. */
    private record Arrival(long nanos, TckRecorder recorder) {
    }

    /** A connected pair: the client's endpoint and the server that accepted it. */
    protected final class Connection {
        final Server server;
        final TckRecorder client = recorder();
        RdmaEndpoint clientEp;
        List<MemoryRegion> clientReceiveRegions;

        Connection(Server server) {
            this.server = server;
        }

        RdmaEndpoint serverEp() {
            return server.endpoint;
        }

        TckRecorder serverRec() {
            return server.recorder;
        }
    }

    protected Connection connect(int clientReceives, int serverReceives) throws RdmaException {
        return connect(clientReceives, serverReceives, params(), params());
    }

    protected Connection connect(int clientReceives, int serverReceives, ConnectParameters connectParameters,
            ConnectParameters acceptParameters) throws RdmaException {
        Server server = new Server(true, serverReceives, acceptParameters).listen(PORT);
        Connection c = new Connection(server);
        c.clientEp = track(f.clientProvider().createEndpoint(new EndpointSettings(16, 16), c.client));
        c.clientReceiveRegions = postReceives(c.clientEp, clientReceives, 2000);
        c.clientEp.connect(f.serverAddress(PORT), connectParameters);
        await("both sides established (client " + c.client.events() + ", server " + server.recorder.events()
                + ", " + server.failure + ")", () -> c.client.established() && server.recorder.established());
        assertNull(server.failure);
        return c;
    }

    private static long count(TckRecorder r, WorkRequestType type, CompletionStatus status) {
        return r.completions(type).stream().filter(c -> c.status() == status).count();
    }

    private static List<Long> wrIds(List<TckRecorder.Completion> completions) {
        return completions.stream().map(TckRecorder.Completion::wrId).toList();
    }

    /**
     * The reason of a device fact the fixture declares, printed once per test where the suite
     * relies on it; {@code null} when the device does not have it.
     */
    protected String fact(RdmaTckFixture.DeviceFact fact) {
        String reason = f.deviceFacts().get(fact);
        if (reason != null && factsShown.add(fact)) {
            System.out.println("device fact " + fact + ": " + reason);
        }
        return reason;
    }

    private final Set<RdmaTckFixture.DeviceFact> factsShown = java.util.EnumSet.noneOf(RdmaTckFixture.DeviceFact.class);

    /** The cause a requester's connection ends with when the peer refused its request: QP_ERROR, or PEER by a device fact. */
    private void assertRequesterBroken(TckRecorder r) {
        if (r.cause() == DisconnectCause.PEER && fact(RdmaTckFixture.DeviceFact.PEER_FAILURE_SEEN_AS_DISCONNECT) != null) {
            return;
        }
        assertEquals(DisconnectCause.QP_ERROR, r.cause(), r.detail());
    }

    /** The connection broke on both sides: the client by a failed request, the server by its own failure or the peer. */
    private void assertBrokenOnBothSides(Connection c) {
        awaitDisconnected(c.client);
        awaitDisconnected(c.serverRec());
        assertRequesterBroken(c.client);
        assertTrue(c.serverRec().cause() == DisconnectCause.QP_ERROR || c.serverRec().cause() == DisconnectCause.PEER,
                "server: " + c.serverRec().cause());
        assertTrue(c.client.lastEvent().startsWith("disconnected:"), c.client.events().toString());
        assertTrue(c.serverRec().lastEvent().startsWith("disconnected:"), c.serverRec().events().toString());
    }

    /**
     * The request failed at the peer: a Read with REMOTE_ACCESS_ERROR; a Write the same where the
     * provider reports remote errors in send completions, else (iWARP) it completed when handed over
     * and the peer's Terminate broke the connection.
     */
    private void assertRemoteAccessError(Connection c, WorkRequestType type) {
        awaitDisconnected(c.client);
        CompletionStatus expected = type == WorkRequestType.RDMA_WRITE && !f.sendsAndWritesCompleteOnAcknowledgement()
                ? CompletionStatus.SUCCESS : CompletionStatus.REMOTE_ACCESS_ERROR;
        CompletionStatus got = c.client.completions(type).get(0).status();
        if (!(expected == CompletionStatus.REMOTE_ACCESS_ERROR && got == CompletionStatus.FLUSHED
                && fact(RdmaTckFixture.DeviceFact.PEER_FAILURE_SEEN_AS_DISCONNECT) != null)) {
            assertEquals(expected, got, c.client.events().toString());
        }
        assertEquals(1, c.client.completions(type).size(), "the request completed once: " + c.client.events());
        assertBrokenOnBothSides(c);
    }

    /** The status of a Send whose receiver had no (fitting) receive: the failure, or SUCCESS on iWARP. */
    private CompletionStatus senderSees(CompletionStatus remoteFailure) {
        return f.sendsAndWritesCompleteOnAcknowledgement() ? remoteFailure : CompletionStatus.SUCCESS;
    }

    /** UNREACHABLE, or REJECTED where the fixture states the provider cannot tell a missing listener from a reject. */
    private DisconnectCause missingListenerCause() {
        return f.reportsMissingListenerAsUnreachable() ? DisconnectCause.UNREACHABLE : DisconnectCause.REJECTED;
    }

    // ------------------------------------------------------------------ connection management

    @Test
    protected void connectAndAcceptEstablishBothSidesWithConsistentAddresses() throws Exception {
        Connection c = connect(2, 2);
        RdmaConnectRequest request = c.server.requests().get(0);
        assertEquals(1, c.server.requests().size());
        assertEquals(List.of("established"), c.client.events());
        assertEquals(List.of("established"), c.serverRec().events());
        assertArrayEquals(new byte[0], c.serverRec().establishedData(), "the passive side gets no private data");
        assertEquals(f.serverAddress(PORT), c.clientEp.peerAddress());
        assertEquals(f.serverAddress(PORT), c.serverEp().localAddress());
        assertNotNull(c.clientEp.localAddress());
        assertEquals(c.clientEp.localAddress(), c.serverEp().peerAddress());
        assertEquals(c.clientEp.localAddress(), request.peerAddress());
        assertEquals(f.serverAddress(PORT), request.localAddress());
        assertTrue(c.clientEp.inboundReadDepth() >= 1 && c.clientEp.outboundReadDepth() >= 1);
    }

    @Test
    protected void connectPrivateDataReachesThePassiveSide() throws Exception {
        Connection c = connect(1, 1, params(1, 2, 3, 4), params());
        ByteBuffer data = c.server.requests().get(0).privateData();
        assertTrue(data.isReadOnly());
        byte[] got = new byte[data.remaining()];
        data.duplicate().get(got);
        assertPrivateData(new byte[] {1, 2, 3, 4}, got);
    }

    /** The private data sent, exactly or (where the fixture says the CM pads it) followed by zeros only. */
    protected void assertPrivateData(byte[] sent, byte[] got) {
        if (!f.padsPrivateData()) {
            assertArrayEquals(sent, got);
            return;
        }
        assertTrue(got.length >= sent.length, "padded private data shorter than sent: " + got.length);
        assertArrayEquals(sent, java.util.Arrays.copyOf(got, sent.length));
        for (int i = sent.length; i < got.length; i++) {
            assertEquals(0, got[i], "padding byte " + i);
        }
    }

    @Test
    protected void acceptPrivateDataReachesTheActiveSide() throws Exception {
        Connection c = connect(1, 1, params(), params(7, 8, 9));
        assertPrivateData(new byte[] {7, 8, 9}, c.client.establishedData());
    }

    @Test
    protected void listenOnATakenAddressIsRefusedUntilTheListenerCloses() throws Exception {
        Server first = new Server(true, 1, params()).listen(PORT);
        Server second = new Server(true, 1, params());
        assertThrows(RdmaException.class, () -> second.listen(PORT));
        first.listener.close();
        second.listen(PORT);
        assertEquals(f.serverAddress(PORT), second.listener.localAddress());
    }

    @Test
    protected void connectToAnAddressWithoutListenerIsUnreachableAfterFlushingItsReceives() throws Exception {
        TckRecorder client = recorder();
        RdmaEndpoint ep = track(f.clientProvider().createEndpoint(new EndpointSettings(4, 4), client));
        postReceives(ep, 2, 1);
        ep.connect(f.serverAddress(PORT + 1), params());
        awaitDisconnected(client);
        DisconnectCause expected = missingListenerCause();
        assertEquals(expected, client.cause());
        assertEquals(List.of("RECEIVE:1:FLUSHED", "RECEIVE:2:FLUSHED", "disconnected:" + expected), client.events());
    }

    @Test
    protected void connectAfterTheListenerClosedIsUnreachable() throws Exception {
        Server server = new Server(true, 1, params()).listen(PORT);
        server.listener.close();
        TckRecorder client = recorder();
        RdmaEndpoint ep = track(f.clientProvider().createEndpoint(new EndpointSettings(4, 4), client));
        ep.connect(f.serverAddress(PORT), params());
        awaitDisconnected(client);
        assertEquals(missingListenerCause(), client.cause());
        assertTrue(server.requests().isEmpty(), "a closed listener reports no request");
    }

    @Test
    protected void rejectEndsTheActiveSideAsRejectedAndReleasesTheCreatedEndpoint() throws Exception {
        Server server = new Server(false, 0, params()).listen(PORT);
        TckRecorder client = recorder();
        RdmaEndpoint ep = track(f.clientProvider().createEndpoint(new EndpointSettings(4, 4), client));
        postReceives(ep, 3, 1);
        ep.connect(f.serverAddress(PORT), params());
        await("the connection request", () -> !server.requests().isEmpty());
        RdmaConnectRequest request = server.requests().get(0);
        TckRecorder passive = recorder();
        RdmaEndpoint created = track(request.createEndpoint(new EndpointSettings(4, 4), passive));
        request.reject(ByteBuffer.allocate(0));
        awaitDisconnected(client);
        assertEquals(DisconnectCause.REJECTED, client.cause());
        assertEquals(List.of("RECEIVE:1:FLUSHED", "RECEIVE:2:FLUSHED", "RECEIVE:3:FLUSHED", "disconnected:REJECTED"),
                client.events());
        assertThrows(RdmaException.class, () -> created.accept(params()), "a rejected request cannot be accepted");
        assertTrue(passive.events().isEmpty(), "a rejected, never accepted endpoint gets no callback");
    }

    @Test
    protected void rejectPrivateDataReachesTheActiveSide() throws Exception {
        Server server = new Server(false, 0, params()).listen(PORT);
        TckRecorder client = recorder();
        RdmaEndpoint ep = track(f.clientProvider().createEndpoint(new EndpointSettings(4, 4), client));
        ep.connect(f.serverAddress(PORT), params());
        await("the connection request", () -> !server.requests().isEmpty());
        server.requests().get(0).reject(ByteBuffer.wrap(new byte[] {42}));
        awaitDisconnected(client);
        assertEquals(DisconnectCause.REJECTED, client.cause());
        assertPrivateData(new byte[] {42}, client.disconnectData());
    }

    @Test
    protected void receivesMayBePostedBeforeConnectButNothingElse() throws Exception {
        TckRecorder client = recorder();
        RdmaEndpoint ep = track(f.clientProvider().createEndpoint(new EndpointSettings(4, 4), client));
        MemoryRegion r = region(ep, new byte[8], MemoryAccess.LOCAL_WRITE);
        ep.postReceive(r, 0, 8, 1);
        assertThrows(RdmaException.class, () -> ep.postSend(r, 0, 8, 2));
        assertThrows(RdmaException.class, () -> ep.postRdmaRead(r, 0, 8, r.address(), r.token(), 3));
        assertThrows(RdmaException.class, () -> ep.postRdmaWrite(r, 0, 8, r.address(), r.token(), 4));
        assertThrows(RdmaException.class, () -> ep.postLocalInvalidate(r, 5));
        ep.disconnect();
        f.settle();
        assertTrue(client.events().isEmpty(), "disconnect of a never connected endpoint is harmless: " + client.events());
    }

    @Test
    protected void theActiveSideCanConnectAgainOnANewEndpointAfterADisconnect() throws Exception {
        Connection c = connect(1, 1);
        c.clientEp.disconnect();
        awaitDisconnected(c.client);
        awaitDisconnected(c.serverRec());
        TckRecorder again = recorder();
        RdmaEndpoint ep = track(f.clientProvider().createEndpoint(new EndpointSettings(4, 4), again));
        ep.connect(f.serverAddress(PORT), params());
        await("the second connection", again::established);
        assertEquals(2, c.server.requests().size());
    }

    // ------------------------------------------------------------------ send / receive

    @Test
    protected void eachSendConsumesExactlyOneReceiveInFifoOrderKeepingMessageBoundaries() throws Exception {
        Connection c = connect(1, 0);
        RdmaEndpoint server = c.serverEp();
        MemoryRegion r1 = server.register(ByteBuffer.allocateDirect(100), access(MemoryAccess.LOCAL_WRITE));
        MemoryRegion r2 = server.register(ByteBuffer.allocateDirect(100), access(MemoryAccess.LOCAL_WRITE));
        server.postReceive(r1, 10, 50, 1);
        server.postReceive(r2, 0, 100, 2);
        MemoryRegion src = region(c.clientEp, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        c.clientEp.postSend(src, 0, 3, 11);
        c.clientEp.postSend(src, 3, 5, 12);
        awaitCompletions(c.serverRec(), 2);
        awaitCompletions(c.client, 2);
        List<TckRecorder.Completion> receives = c.serverRec().completions(WorkRequestType.RECEIVE);
        assertEquals(List.of(1L, 2L), wrIds(receives));
        assertEquals(3, receives.get(0).byteLength());
        assertEquals(5, receives.get(1).byteLength());
        assertTrue(receives.stream().allMatch(x -> x.status() == CompletionStatus.SUCCESS && !x.invalidated()));
        assertArrayEquals(new byte[] {1, 2, 3}, bytes(r1, 10, 3));
        assertArrayEquals(new byte[10], bytes(r1, 0, 10), "nothing before the receive's offset");
        assertArrayEquals(new byte[] {4, 5, 6, 7, 8}, bytes(r2, 0, 5));
        List<TckRecorder.Completion> sends = c.client.completions(WorkRequestType.SEND);
        assertEquals(List.of(11L, 12L), wrIds(sends));
        assertTrue(sends.stream().allMatch(x -> x.status() == CompletionStatus.SUCCESS));
        assertNull(c.client.cause());
        assertNull(c.serverRec().cause());
    }

    @Test
    protected void zeroLengthSendIsDelivered() throws Exception {
        Connection c = connect(1, 1);
        MemoryRegion src = region(c.clientEp, new byte[1]);
        c.clientEp.postSend(src, 0, 0, 1);
        awaitCompletions(c.serverRec(), 1);
        TckRecorder.Completion rc = c.serverRec().completions(WorkRequestType.RECEIVE).get(0);
        assertEquals(CompletionStatus.SUCCESS, rc.status());
        assertEquals(0, rc.byteLength());
    }

    @Test
    protected void sendWithoutPostedReceiveIsReceiverNotReadyAndBreaksBothSides() throws Exception {
        Connection c = connect(4, 0);
        MemoryRegion src = region(c.clientEp, new byte[16]);
        c.clientEp.postSend(src, 0, 16, 1);
        assertBrokenOnBothSides(c);
        List<TckRecorder.Completion> sends = c.client.completions(WorkRequestType.SEND);
        assertEquals(List.of(1L), wrIds(sends));
        assertEquals(senderSees(CompletionStatus.RECEIVER_NOT_READY), sends.get(0).status());
        assertEquals(List.of(2000L, 2001L, 2002L, 2003L), wrIds(c.client.completions(WorkRequestType.RECEIVE)));
        assertEquals(4, count(c.client, WorkRequestType.RECEIVE, CompletionStatus.FLUSHED));
        assertThrows(RdmaException.class, () -> c.clientEp.postSend(src, 0, 1, 3));
        assertThrows(RdmaException.class, () -> c.serverEp().postReceive(src, 0, 1, 3));
    }

    @Test
    protected void messageLongerThanTheReceiveIsALengthErrorAtTheReceiverAndBreaksBothSides() throws Exception {
        Connection c = connect(1, 0);
        MemoryRegion small = c.serverEp().register(ByteBuffer.allocateDirect(8), access(MemoryAccess.LOCAL_WRITE));
        c.serverEp().postReceive(small, 0, 8, 77);
        MemoryRegion src = region(c.clientEp, new byte[9]);
        c.clientEp.postSend(src, 0, 9, 1);
        awaitDisconnected(c.serverRec());
        awaitDisconnected(c.client);
        CompletionStatus receive = c.serverRec().completions(WorkRequestType.RECEIVE).get(0).status();
        boolean generalErrors = receive == CompletionStatus.GENERAL_ERROR
                && fact(RdmaTckFixture.DeviceFact.SHORT_RECEIVE_NOT_A_LENGTH_ERROR) != null;
        if (!generalErrors) {
            assertEquals(CompletionStatus.LOCAL_LENGTH_ERROR, receive);
        }
        // the receiver's own failure and the sender's disconnect race (either may end the receiver first)
        assertTrue(c.serverRec().cause() == DisconnectCause.QP_ERROR || c.serverRec().cause() == DisconnectCause.PEER,
                "server: " + c.serverRec().cause());
        CompletionStatus send = c.client.completions(WorkRequestType.SEND).get(0).status();
        assertTrue(send == senderSees(CompletionStatus.REMOTE_INVALID_REQUEST) || send == CompletionStatus.FLUSHED
                || (generalErrors && send == CompletionStatus.GENERAL_ERROR), "the sender's Send: " + send);
        assertTrue(c.client.cause() == DisconnectCause.QP_ERROR || c.client.cause() == DisconnectCause.PEER,
                "client: " + c.client.cause());
    }

    @Test
    protected void everyAcceptedWorkRequestCompletesExactlyOnceInPostOrder() throws Exception {
        Connection c = connect(0, 3);
        MemoryRegion src = region(c.clientEp, new byte[64]);
        List<Long> accepted = new ArrayList<>();
        for (long i = 0; i < 6; i++) {
            try {
                c.clientEp.postSend(src, 0, 8, i);
                accepted.add(i);
            } catch (RdmaException e) {
                assertTrue(i >= 4, "only a post after the failure may be refused: " + e);
            }
        }
        awaitDisconnected(c.client);
        awaitDisconnected(c.serverRec());
        List<TckRecorder.Completion> sends = c.client.completions(WorkRequestType.SEND);
        assertEquals(accepted, wrIds(sends), "each accepted post completes once, in post order");
        boolean flushedSeen = false;
        for (int i = 0; i < sends.size(); i++) {
            CompletionStatus status = sends.get(i).status();
            if (i < 3 || f.sendsAndWritesCompleteOnAcknowledgement()) {
                CompletionStatus expected = i < 3 ? CompletionStatus.SUCCESS
                        : i == 3 ? CompletionStatus.RECEIVER_NOT_READY : CompletionStatus.FLUSHED;
                assertEquals(expected, status, "send " + i);
            } else {
                // iWARP: the fourth Send (the one the peer refuses) completed when handed to TCP, the
                // later ones too unless the peer's Terminate ended the connection first
                assertTrue(status == CompletionStatus.SUCCESS || status == CompletionStatus.FLUSHED,
                        "send " + i + ": " + status + " (" + sends + ")");
                assertFalse(flushedSeen && status == CompletionStatus.SUCCESS,
                        "send " + i + " succeeded after an earlier one was flushed: " + sends);
                assertTrue(i > 3 || status == CompletionStatus.SUCCESS,
                        "send 3 must have been handed to TCP before the peer could refuse it: " + status);
                flushedSeen |= status == CompletionStatus.FLUSHED;
            }
        }
        assertEquals(List.of(1000L, 1001L, 1002L), wrIds(c.serverRec().completions(WorkRequestType.RECEIVE)));
        assertTrue(c.client.lastEvent().startsWith("disconnected:"), c.client.events().toString());
        assertRequesterBroken(c.client);
    }

    @Test
    protected void callbacksMayPostAndPingPongKeepsOrder() throws Exception {
        Connection c = connect(1, 1);
        int rounds = 200;
        MemoryRegion clientSrc = region(c.clientEp, new byte[4]);
        MemoryRegion serverSrc = region(c.serverEp(), new byte[4]);
        List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        int[] expectedAtServer = {0};
        c.serverRec().onCompletion = wc -> {
            if (wc.type() != WorkRequestType.RECEIVE || wc.status() != CompletionStatus.SUCCESS) {
                return;
            }
            MemoryRegion r = c.server.receiveRegions.get(0);
            int seq = r.buffer().getInt(0);
            try {
                if (seq != expectedAtServer[0]++) {
                    errors.add("server got " + seq);
                }
                c.serverEp().postReceive(r, 0, RECEIVE_SIZE, wc.wrId());
                serverSrc.buffer().putInt(0, seq);
                c.serverEp().postSend(serverSrc, 0, 4, seq);
            } catch (RdmaException e) {
                errors.add(e.toString());
            }
        };
        int[] replies = {0};
        c.client.onCompletion = wc -> {
            if (wc.type() != WorkRequestType.RECEIVE || wc.status() != CompletionStatus.SUCCESS) {
                return;
            }
            MemoryRegion r = c.clientReceiveRegions.get(0);
            int seq = r.buffer().getInt(0);
            try {
                if (seq != replies[0]) {
                    errors.add("client got " + seq);
                }
                replies[0]++;
                c.clientEp.postReceive(r, 0, RECEIVE_SIZE, wc.wrId());
                if (replies[0] < rounds) {
                    clientSrc.buffer().putInt(0, replies[0]);
                    c.clientEp.postSend(clientSrc, 0, 4, replies[0]);
                }
            } catch (RdmaException e) {
                errors.add(e.toString());
            }
        };
        clientSrc.buffer().putInt(0, 0);
        c.clientEp.postSend(clientSrc, 0, 4, 0);
        await(rounds + " round trips", () -> c.client.completions(WorkRequestType.RECEIVE).size() >= rounds
                && c.client.completions(WorkRequestType.SEND).size() >= rounds);
        assertEquals(List.of(), new ArrayList<>(errors));
        List<Long> expected = new ArrayList<>();
        for (long i = 0; i < rounds; i++) {
            expected.add(i);
        }
        assertEquals(expected, wrIds(c.client.completions(WorkRequestType.SEND)));
        assertNull(c.client.cause());
    }

    // ------------------------------------------------------------------ memory

    @Test
    protected void registrationCoversPositionToLimitWithTheGrantedAccess() throws Exception {
        TckRecorder client = recorder();
        RdmaEndpoint ep = track(f.clientProvider().createEndpoint(new EndpointSettings(4, 4), client));
        assertThrows(RdmaException.class, () -> ep.register(ByteBuffer.allocate(8), access()), "heap buffer");
        ByteBuffer b = ByteBuffer.allocateDirect(32);
        b.position(8).limit(24);
        EnumSet<MemoryAccess> rights = access(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ);
        MemoryRegion r = ep.register(b, rights);
        assertEquals(16, r.length());
        assertEquals(0, r.buffer().position());
        assertEquals(16, r.buffer().remaining());
        assertEquals(rights, r.access());
        assertNotEquals(0, r.token());
        assertTrue(r.isValid());
        r.buffer().put(0, (byte) 99);
        assertEquals(99, b.get(8), "the region is the caller's memory");
        ep.deregister(r);
        assertFalse(r.isValid());
    }

    @Test
    protected void remoteWriteWithoutLocalWriteIsRefusedAndRegistersNothing() throws Exception {
        TckRecorder client = recorder();
        RdmaEndpoint ep = track(f.clientProvider().createEndpoint(new EndpointSettings(4, 4), client));
        assertThrows(RdmaException.class, () -> ep.register(ByteBuffer.allocateDirect(8),
                access(MemoryAccess.REMOTE_WRITE)));
        MemoryRegion r = ep.register(ByteBuffer.allocateDirect(8),
                access(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
        assertEquals(access(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE), r.access());
    }

    @Test
    protected void receivesBeyondTheReceiveQueueDepthAreRefused() throws Exception {
        TckRecorder client = recorder();
        RdmaEndpoint ep = track(f.clientProvider().createEndpoint(new EndpointSettings(4, 2), client));
        MemoryRegion r = region(ep, new byte[32], MemoryAccess.LOCAL_WRITE);
        ep.postReceive(r, 0, 8, 1);
        ep.postReceive(r, 8, 8, 2);
        assertThrows(RdmaException.class, () -> ep.postReceive(r, 16, 8, 3));
    }

    @Test
    protected void tokensOfLiveRegistrationsAreDistinct() throws Exception {
        TckRecorder client = recorder();
        RdmaEndpoint ep = track(f.clientProvider().createEndpoint(new EndpointSettings(4, 4), client));
        Set<Integer> tokens = new HashSet<>();
        List<MemoryRegion> regions = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            MemoryRegion r = ep.register(ByteBuffer.allocateDirect(16), access(MemoryAccess.REMOTE_READ));
            assertTrue(tokens.add(r.token()), "token reused");
            regions.add(r);
        }
        for (MemoryRegion r : regions) {
            ep.deregister(r);
        }
    }

    @Test
    protected void rdmaWriteAndReadAreByteExactAtOffsets() throws Exception {
        Connection c = connect(1, 1);
        int size = 256 * 1024;
        MemoryRegion target = c.serverEp().register(ByteBuffer.allocateDirect(size + 64),
                access(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE, MemoryAccess.REMOTE_READ));
        byte[] payload = new byte[size];
        new Random(42).nextBytes(payload);
        ByteBuffer srcBuffer = ByteBuffer.allocateDirect(size + 16);
        srcBuffer.position(16);
        srcBuffer.put(payload);
        srcBuffer.clear();
        MemoryRegion src = c.clientEp.register(srcBuffer, access());
        c.clientEp.postRdmaWrite(src, 16, size, target.address() + 32, target.token(), 1);
        awaitCompletions(c.client, 1);
        assertEquals(CompletionStatus.SUCCESS, c.client.completions().get(0).status());
        assertEquals(size, c.client.completions().get(0).byteLength());
        if (f.sendsAndWritesCompleteOnAcknowledgement()) {
            assertArrayEquals(payload, bytes(target, 32, size), "an acknowledged Write is placed");
        }
        MemoryRegion sink = c.clientEp.register(ByteBuffer.allocateDirect(16), access(MemoryAccess.LOCAL_WRITE));
        c.clientEp.postRdmaRead(sink, 1, 4, target.address() + 34, target.token(), 2);
        awaitCompletions(c.client, 2);
        // the Read's response follows the Write on the connection: the Write is placed by now
        assertArrayEquals(payload, bytes(target, 32, size));
        assertArrayEquals(new byte[32], bytes(target, 0, 32), "nothing before the target offset");
        assertArrayEquals(new byte[32], bytes(target, 32 + size, 32), "nothing after the written range");
        TckRecorder.Completion read = c.client.completions(WorkRequestType.RDMA_READ).get(0);
        assertEquals(CompletionStatus.SUCCESS, read.status());
        assertEquals(4, read.byteLength());
        assertArrayEquals(new byte[] {0, payload[2], payload[3], payload[4], payload[5], 0, 0, 0}, bytes(sink, 0, 8));
        assertEquals(List.of(1L, 2L), wrIds(c.client.completions()));
        assertTrue(c.serverRec().completions().isEmpty(), "RDMA is invisible to the target's handler");
    }

    @Test
    protected void rdmaReadWithoutRemoteReadAccessIsARemoteAccessError() throws Exception {
        Connection c = connect(1, 1);
        ByteBuffer bytes = ByteBuffer.allocateDirect(16);
        bytes.put(0, DATA);
        MemoryRegion target = c.serverEp().register(bytes, access(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
        MemoryRegion sink = c.clientEp.register(ByteBuffer.allocateDirect(8), access(MemoryAccess.LOCAL_WRITE));
        c.clientEp.postRdmaRead(sink, 0, 4, target.address(), target.token(), 1);
        awaitCompletions(c.client, 1);
        TckRecorder.Completion read = c.client.completions(WorkRequestType.RDMA_READ).get(0);
        if (read.status() == CompletionStatus.SUCCESS
                && fact(RdmaTckFixture.DeviceFact.READ_WITHOUT_REMOTE_READ_SERVED) != null) {
            // served as the device does it: the bytes are the region's and the connection stays up
            assertEquals(4, read.byteLength());
            assertArrayEquals(new byte[] {10, 11, 12, 13, 0, 0, 0, 0}, bytes(sink, 0, 8));
            assertNull(c.client.cause());
            assertNull(c.serverRec().cause());
            return;
        }
        assertRemoteAccessError(c, WorkRequestType.RDMA_READ);
    }

    @Test
    protected void rdmaWriteWithoutRemoteWriteAccessIsARemoteAccessError() throws Exception {
        Connection c = connect(1, 1);
        MemoryRegion target = c.serverEp().register(ByteBuffer.allocateDirect(16),
                access(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ));
        MemoryRegion src = region(c.clientEp, DATA);
        c.clientEp.postRdmaWrite(src, 0, 4, target.address(), target.token(), 1);
        assertRemoteAccessError(c, WorkRequestType.RDMA_WRITE);
        assertArrayEquals(new byte[16], bytes(target, 0, 16), "nothing was written");
    }

    @Test
    protected void rdmaWriteBeyondTheRegionIsARemoteAccessErrorAndWritesNothing() throws Exception {
        Connection c = connect(1, 1);
        MemoryRegion target = c.serverEp().register(ByteBuffer.allocateDirect(16),
                access(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
        MemoryRegion src = region(c.clientEp, DATA);
        c.clientEp.postRdmaWrite(src, 0, 8, target.address() + 9, target.token(), 1);
        assertRemoteAccessError(c, WorkRequestType.RDMA_WRITE);
        assertArrayEquals(new byte[16], bytes(target, 0, 16), "nothing was written");
    }

    @Test
    protected void rdmaBelowTheRegionAddressIsARemoteAccessError() throws Exception {
        Connection c = connect(1, 1);
        MemoryRegion target = c.serverEp().register(ByteBuffer.allocateDirect(16), access(MemoryAccess.REMOTE_READ));
        MemoryRegion sink = c.clientEp.register(ByteBuffer.allocateDirect(8), access(MemoryAccess.LOCAL_WRITE));
        c.clientEp.postRdmaRead(sink, 0, 4, target.address() - 1, target.token(), 1);
        assertRemoteAccessError(c, WorkRequestType.RDMA_READ);
    }

    @Test
    protected void rdmaWithAWrongTokenIsARemoteAccessError() throws Exception {
        Connection c = connect(1, 1);
        MemoryRegion target = c.serverEp().register(ByteBuffer.allocateDirect(16), access(MemoryAccess.REMOTE_READ));
        MemoryRegion sink = c.clientEp.register(ByteBuffer.allocateDirect(8), access(MemoryAccess.LOCAL_WRITE));
        c.clientEp.postRdmaRead(sink, 0, 4, target.address(), target.token() ^ 1, 1);
        assertRemoteAccessError(c, WorkRequestType.RDMA_READ);
    }

    @Test
    protected void registrationsOfTheInitiatorAreNotReachableThroughTheConnection() throws Exception {
        Connection c = connect(1, 1);
        MemoryRegion own = c.clientEp.register(ByteBuffer.allocateDirect(16), access(MemoryAccess.REMOTE_READ));
        MemoryRegion sink = c.clientEp.register(ByteBuffer.allocateDirect(8), access(MemoryAccess.LOCAL_WRITE));
        c.clientEp.postRdmaRead(sink, 0, 4, own.address(), own.token(), 1);
        assertRemoteAccessError(c, WorkRequestType.RDMA_READ);
    }

    @Test
    protected void staleTokenAfterDeregistrationIsARemoteAccessError() throws Exception {
        Connection c = connect(1, 1);
        MemoryRegion target = c.serverEp().register(ByteBuffer.allocateDirect(16), access(MemoryAccess.REMOTE_READ));
        c.serverEp().deregister(target);
        assertFalse(target.isValid());
        MemoryRegion sink = c.clientEp.register(ByteBuffer.allocateDirect(8), access(MemoryAccess.LOCAL_WRITE));
        c.clientEp.postRdmaRead(sink, 0, 4, target.address(), target.token(), 1);
        assertRemoteAccessError(c, WorkRequestType.RDMA_READ);
    }

    @Test
    protected void tokenAfterLocalInvalidateIsARemoteAccessError() throws Exception {
        Connection c = connect(1, 1);
        MemoryRegion target = c.serverEp().register(ByteBuffer.allocateDirect(16), access(MemoryAccess.REMOTE_READ));
        c.serverEp().postLocalInvalidate(target, 9);
        awaitCompletions(c.serverRec(), 1);
        TckRecorder.Completion inv = c.serverRec().completions().get(0);
        assertEquals(WorkRequestType.LOCAL_INVALIDATE, inv.type());
        assertEquals(9, inv.wrId());
        assertEquals(CompletionStatus.SUCCESS, inv.status());
        assertFalse(target.isValid());
        MemoryRegion sink = c.clientEp.register(ByteBuffer.allocateDirect(8), access(MemoryAccess.LOCAL_WRITE));
        c.clientEp.postRdmaRead(sink, 0, 4, target.address(), target.token(), 1);
        assertRemoteAccessError(c, WorkRequestType.RDMA_READ);
    }

    /**
     * Where the provider reports Send with Invalidate, the receiver's region named by the token is
     * invalidated when the message arrives, its receive completion reports the token (unless the
     * fixture declares {@link RdmaTckFixture.DeviceFact#INVALIDATION_NOT_REPORTED}), and a later
     * RDMA access to it fails. Where it does not, posting one is refused (an upper layer must then not
     * hand its tokens out for remote invalidation) and the connection goes on.
     */
    @Test
    protected void sendWithInvalidateInvalidatesTheReceiversRegionWhereTheProviderReportsIt() throws Exception {
        Connection c = connect(1, 1);
        MemoryRegion src = region(c.clientEp, DATA);
        if (!f.clientProvider().capabilities().sendWithInvalidate()) {
            System.out.println("no Send with Invalidate: " + f.clientProvider().describeSettings());
            assertThrows(RdmaException.class, () -> c.clientEp.postSendWithInvalidate(src, 0, 8, 1, 1));
            c.clientEp.postSend(src, 0, 8, 2);
            awaitCompletions(c.serverRec(), 1);
            assertEquals(CompletionStatus.SUCCESS, c.serverRec().completions().get(0).status());
            assertFalse(c.serverRec().completions().get(0).invalidated());
            return;
        }
        MemoryRegion exposed = c.serverEp().register(ByteBuffer.allocateDirect(16),
                access(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
        c.clientEp.postSendWithInvalidate(src, 0, 8, exposed.token(), 1);
        awaitCompletions(c.serverRec(), 1);
        TckRecorder.Completion rc = c.serverRec().completions(WorkRequestType.RECEIVE).get(0);
        assertEquals(CompletionStatus.SUCCESS, rc.status());
        assertEquals(8, rc.byteLength());
        if (fact(RdmaTckFixture.DeviceFact.INVALIDATION_NOT_REPORTED) != null) {
            assertFalse(rc.invalidated(), "the fixture declares that the device does not report the invalidation");
        } else {
            assertTrue(rc.invalidated());
            assertEquals(exposed.token(), rc.token());
            assertFalse(exposed.isValid());
        }
        awaitCompletions(c.client, 1);
        assertEquals(CompletionStatus.SUCCESS, c.client.completions(WorkRequestType.SEND).get(0).status());
        c.clientEp.postRdmaWrite(src, 0, 4, exposed.address(), exposed.token(), 2);
        assertRemoteAccessError(c, WorkRequestType.RDMA_WRITE);
    }

    // ------------------------------------------------------------------ teardown

    @Test
    protected void disconnectFlushesEveryOutstandingRequestExactlyOnceBeforeOnDisconnected() throws Exception {
        Connection c = connect(4, 3);
        c.clientEp.disconnect();
        c.clientEp.disconnect();
        awaitDisconnected(c.client);
        awaitDisconnected(c.serverRec());
        assertEquals(List.of("established", "RECEIVE:2000:FLUSHED", "RECEIVE:2001:FLUSHED", "RECEIVE:2002:FLUSHED",
                "RECEIVE:2003:FLUSHED", "disconnected:LOCAL"), c.client.events());
        assertEquals(List.of("established", "RECEIVE:1000:FLUSHED", "RECEIVE:1001:FLUSHED", "RECEIVE:1002:FLUSHED",
                "disconnected:PEER"), c.serverRec().events());
        MemoryRegion src = c.clientReceiveRegions.get(0);
        assertThrows(RdmaException.class, () -> c.clientEp.postSend(src, 0, 1, 9));
        assertThrows(RdmaException.class, () -> c.clientEp.postReceive(src, 0, 1, 9));
    }

    @Test
    protected void disconnectFromThePassiveSide() throws Exception {
        Connection c = connect(1, 1);
        c.serverEp().disconnect();
        awaitDisconnected(c.client);
        awaitDisconnected(c.serverRec());
        assertEquals(DisconnectCause.LOCAL, c.serverRec().cause());
        assertEquals(DisconnectCause.PEER, c.client.cause());
    }

    @Test
    protected void nothingArrivesAfterOnDisconnected() throws Exception {
        Connection c = connect(2, 2);
        c.clientEp.disconnect();
        awaitDisconnected(c.client);
        awaitDisconnected(c.serverRec());
        int clientEvents = c.client.events().size();
        c.clientEp.disconnect();
        c.serverEp().disconnect();
        assertThrows(RdmaException.class, () -> c.serverEp().postReceive(c.server.receiveRegions.get(0), 0, 8, 7));
        // a new connection on the same providers proves they kept running after the late calls
        TckRecorder other = recorder();
        RdmaEndpoint ep = track(f.clientProvider().createEndpoint(new EndpointSettings(4, 4), other));
        long connecting = System.nanoTime();
        ep.connect(f.serverAddress(PORT), params());
        await(() -> "another connection (its events " + other.events() + "; accept failure " + c.server.failure
                + "; the server's connect requests, relative to its connect: " + c.server.laterRequests(connecting)
                + ")", other::established);
        assertEquals(clientEvents, c.client.events().size());
        assertEquals(1, c.client.events().stream().filter(e -> e.startsWith("disconnected")).count());
    }

    @Test
    protected void closingALiveEndpointDisconnectsThePeerWithoutCallbacksOfItsOwn() throws Exception {
        Connection c = connect(2, 2);
        MemoryRegion r = c.clientEp.register(ByteBuffer.allocateDirect(8), access());
        int before = c.client.events().size();
        c.clientEp.close();
        awaitDisconnected(c.serverRec());
        assertEquals(DisconnectCause.PEER, c.serverRec().cause());
        assertEquals(2, count(c.serverRec(), WorkRequestType.RECEIVE, CompletionStatus.FLUSHED));
        assertEquals(before, c.client.events().size(), "a closed endpoint gets no callback: " + c.client.events());
        assertFalse(r.isValid(), "close releases the endpoint's regions");
        assertThrows(RdmaException.class, () -> c.clientEp.postSend(r, 0, 1, 1));
        assertThrows(RdmaException.class, () -> c.clientEp.register(ByteBuffer.allocateDirect(8), access()));
    }
}
