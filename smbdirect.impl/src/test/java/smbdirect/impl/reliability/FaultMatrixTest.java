package smbdirect.impl.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.CloseReason.Kind;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.impl.engine.SmbDirectEngine;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.wire.DataTransfer;
import smbdirect.impl.wire.NegotiateResponse;
import smbdirect.impl.wire.SmbdWire;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockEndpoint;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.rdma.mock.RawMessage;
import smbdirect.rdma.mock.RawPeer;

/**
 * The fault matrix: every connection state x every fault that can occur in it, for both roles, on
 * the mock fabric in DETERMINISTIC mode and virtual time. The subject is an engine connection whose
 * far end is a {@link RawPeer} (so each state can be held exactly): an ACTIVE connection of the
 * client engine to a listening raw peer, or the PASSIVE connection a listener of the server engine
 * made for a connecting raw peer. A bystander pair of engine connections runs on the same two
 * engines.
 *
 * <p>For every case: the upper layer is told exactly once with the expected reason (active: the
 * connect stage before negotiation completed, {@code onDisconnected} after; passive: before
 * negotiation completed the accept handler is never called and the engine records the connection
 * closed once with the reason, {@code onDisconnected} after); every send and RDMA completion is
 * called exactly once and the queued ones fail; the close completes within a bound of virtual
 * time; the subject's endpoint is released at once; the bystander keeps exchanging messages
 * (unless the fault takes the whole device or engine down, when it is told once with the same
 * reason); a passive subject's listener stays open and negotiates the next connection; and at the
 * end the fabric holds nothing ({@code assertNoLeaks}).
 *
 * <p>The states of a passive subject: {@code CONNECTING} is the connect request taken by the
 * listener (the engine accepted it, the establishment is still queued), {@code NEGOTIATING} the
 * established connection waiting for the Negotiate Request; the others as for the active one, with
 * the raw peer granting the credits by a Data Transfer message after the Negotiate Response
 * (R-3.1.5.8-13) and exchanging one message each way before the state is reached.
 */
class FaultMatrixTest {

    enum State {
        CONNECTING, NEGOTIATING, ESTABLISHED_IDLE, MID_FRAGMENTED_RECEIVE, MID_FRAGMENTED_SEND, CREDIT_STARVED,
        RDMA_IN_FLIGHT, CLOSING
    }

    /** The subject's role. */
    enum Side {
        ACTIVE, PASSIVE
    }

    enum Fault {
        PEER_DISCONNECT, PEER_LOSS, SEND_ERROR, RECEIVE_ERROR, RDMA_ERROR, REGISTRATION_FAILURE, DEVICE_REMOVAL,
        PROVIDER_GONE, TIMEOUT, LOCAL_CLOSE_OTHER_THREAD
    }

    static final Duration KEEPALIVE = Duration.ofSeconds(10);
    static final Duration KEEPALIVE_RESPONSE = Duration.ofSeconds(5);
    static final Duration CREDIT_GRANT = Duration.ofSeconds(5);
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(20);
    static final Duration PASSIVE_NEGOTIATION = Duration.ofSeconds(5);
    static final TransportSettings SETTINGS = TransportSettings.builder().keepaliveInterval(KEEPALIVE)
            .keepaliveResponseTimeout(KEEPALIVE_RESPONSE).creditGrantTimeout(CREDIT_GRANT)
            .passiveNegotiationTimeout(PASSIVE_NEGOTIATION).build();

    /** Why a combination cannot exist, or null when it applies. */
    static String inapplicable(State s, Fault f) {
        boolean early = s == State.CONNECTING || s == State.NEGOTIATING;
        if (early && f == Fault.RDMA_ERROR) {
            return "no RDMA is possible before negotiation completed";
        }
        if (s == State.CONNECTING && (f == Fault.SEND_ERROR || f == Fault.RECEIVE_ERROR)) {
            return "no message can be sent or received before the RDMA connection exists";
        }
        return null;
    }

    /** Every applicable combination of role, state and fault. */
    static Stream<Arguments> matrix() {
        List<Arguments> out = new ArrayList<>();
        for (Side side : Side.values()) {
            for (State s : State.values()) {
                for (Fault f : Fault.values()) {
                    if (inapplicable(s, f) == null) {
                        out.add(Arguments.of(side, s, f));
                    }
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} x {2}")
    @MethodSource("matrix")
    void matrix(Side side, State state, Fault fault) throws Exception {
        new Case(side, state, fault).run();
    }

    /** One completion callback: how often it was called and with what. */
    static final class Outcome {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        void done(Throwable t) {
            calls.incrementAndGet();
            failure.set(t);
        }
    }

    static final class Case {
        final Side side;
        final State state;
        final Fault fault;
        final Rig rig = new Rig(DeliveryMode.DETERMINISTIC, SETTINGS);
        final Rig.Peer subject = new Rig.Peer("subject");
        final List<Outcome> sends = new ArrayList<>();
        final List<Outcome> mustFail = new ArrayList<>();
        final List<Outcome> rdmaOps = new ArrayList<>();
        RawPeer raw;
        Rig.Peer[] bystander;
        CompletableFuture<SmbDirectConnection> connect;
        MemoryRegion rawRegion;
        RegisteredBuffer local;
        /** Passive: the listener the raw peer connects to, its accept calls and the connections after the subject. */
        SmbDirectListener subjectListener;
        final AtomicInteger acceptCalls = new AtomicInteger();
        final List<Rig.Peer> later = new CopyOnWriteArrayList<>();
        /** Connections accepted from now on are not the subject. */
        volatile boolean subjectDone;
        /** The subject's connection id (from the engine's DTOs once the connection exists). */
        long subjectId = -1;

        Case(Side side, State state, Fault fault) {
            this.side = side;
            this.state = state;
            this.fault = fault;
        }

        boolean passive() {
            return side == Side.PASSIVE;
        }

        SmbDirectEngine subjectEngine() {
            return passive() ? rig.server : rig.client;
        }

        MockProvider subjectDevice() {
            return passive() ? rig.serverDevice : rig.clientDevice;
        }

        /** The device of the bystander's other end. */
        MockProvider bystanderPeerDevice() {
            return passive() ? rig.clientDevice : rig.serverDevice;
        }

        /** The bystander connection on the subject's engine. */
        Rig.Peer bystanderOnSubjectEngine() {
            return passive() ? bystander[1] : bystander[0];
        }

        SmbDirectConnection s() {
            if (passive()) {
                assertTrue(subject.connection.isDone(), "the subject was accepted");
                return subject.connection.join();
            }
            return connect.join();
        }

        boolean early() {
            return state == State.CONNECTING || state == State.NEGOTIATING;
        }

        boolean starved() {
            return state == State.CREDIT_STARVED || state == State.MID_FRAGMENTED_SEND;
        }

        /**
         * Whether the upper layer holds the connection when the fault strikes or before it is
         * closed: always once negotiated; a passive connection also when its Negotiate Response was
         * posted (the upper layer is told right after, A-41) and that Send then fails.
         */
        boolean reachesUpperLayer() {
            return !early() || passive() && state == State.NEGOTIATING && fault == Fault.SEND_ERROR;
        }

        boolean engineDown() {
            return fault == Fault.DEVICE_REMOVAL || fault == Fault.PROVIDER_GONE;
        }

        MockEndpoint subjectEndpoint() {
            for (MockEndpoint e : subjectDevice().endpoints()) {
                if (e.peer() != null && e.peer().provider() == raw.provider()) {
                    return e;
                }
            }
            return null;
        }

        void run() throws Exception {
            try (rig) {
                bystander = rig.pair();
                raw = rig.fabric.rawPeer();
                raw.receiveSize(8192);
                if (passive()) {
                    subjectListener = rig.server.listen(new InetSocketAddress(rig.serverDevice.address(), 0), c -> {
                        if (!subjectDone) {
                            acceptCalls.incrementAndGet();
                            subject.connection.complete(c);
                            return subject;
                        }
                        Rig.Peer p = new Rig.Peer("later-" + c.id());
                        p.connection.complete(c);
                        later.add(p);
                        return p;
                    });
                    arm();
                    raw.connect(subjectListener.localAddress(), new byte[0]);
                    reachPassive();
                } else {
                    InetSocketAddress at = raw.listen(new InetSocketAddress(raw.provider().address(), 0));
                    arm();
                    connect = rig.client.connect(at, CONNECT_TIMEOUT, subject).toCompletableFuture();
                    reach();
                }
                subjectId = findSubjectId();
                long before = rig.clock.nanoTime();
                inject();
                Duration bound = awaitClosed();
                long took = rig.clock.nanoTime() - before;
                assertTrue(took <= bound.toNanos(), "closed after " + Duration.ofNanos(took) + ", bound " + bound);
                checkToldOnce();
                checkCompletions();
                checkReleased();
                checkBystander();
                checkListener();
                raw.close();
                rig.closeAndAssertNoLeaks();
            }
        }

        /** Faults that must be armed before the state is reached. */
        void arm() {
            if (passive()) {
                if (state == State.CONNECTING && fault == Fault.REGISTRATION_FAILURE) {
                    rig.serverDevice.failNextRegistrations(1); // the initial receive region
                }
                return;
            }
            if (state == State.CONNECTING && fault == Fault.PEER_DISCONNECT) {
                raw.provider().refuseConnections(new byte[0]); // the peer refuses the queued request
            }
            if (state == State.CONNECTING && fault == Fault.REGISTRATION_FAILURE) {
                rig.clientDevice.failNextRegistrations(1); // the initial receive region
            }
            if (state == State.NEGOTIATING && fault == Fault.SEND_ERROR) {
                rig.fabric.onEndpointCreated(e -> {
                    if (e.provider() == rig.clientDevice) {
                        e.failNextPost(WorkRequestType.SEND, CompletionStatus.LOCAL_PROTECTION_ERROR);
                    }
                });
            }
        }

        void reach() throws Exception {
            if (state == State.CONNECTING) {
                return; // nothing stepped: the connect request is queued
            }
            rig.settle();
            if (state == State.NEGOTIATING) {
                // the Negotiate Request arrived unless the fault made its Send fail
                assertEquals(fault == Fault.SEND_ERROR ? 0 : 1, raw.messages().size(), "Negotiate Requests");
                return;
            }
            int granted = starved() ? 2 : 255;
            ByteBuffer resp = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
            NegotiateResponse.encode(resp, 0, 0x100, 0x100, 0x100, 255, granted, 0, 1 << 20, 1364, 8192, 1 << 20);
            raw.send(resp.array());
            rig.settle();
            assertTrue(connect.isDone() && !connect.isCompletedExceptionally(), "negotiated");
            reachEstablishedState();
        }

        /**
         * Passive: the listener takes the raw peer's connect request (the engine accepts it; the
         * establishment stays queued), the connection is established, or it negotiates: the raw
         * peer's Negotiate Request, then a Data Transfer message granting the subject its Send
         * Credits and, unless the subject is to starve, one message back.
         */
        void reachPassive() throws Exception {
            if (state == State.CONNECTING) {
                while (subjectListener.getListenerDTO().connectRequests == 0) {
                    assertTrue(rig.fabric.step(), "the connect request reaches the listener");
                }
                return;
            }
            rig.settle();
            assertTrue(raw.isConnected(), "the raw peer is connected");
            if (state == State.NEGOTIATING) {
                assertEquals(0, acceptCalls.get(), "not accepted before the Negotiate Request");
                return;
            }
            raw.send(Rig.negotiateRequest(255, 1364, 8192, 1 << 20));
            rig.settle();
            assertEquals(1, acceptCalls.get(), "accepted once negotiated");
            assertEquals(1, raw.messages().size(), "the Negotiate Response");
            // the subject holds no Send Credit until the raw peer grants some (R-3.1.5.8-13); with
            // 16 receives posted the raw peer grants 16, or 2 to starve the subject
            raw.send(Rig.dataTransfer(starved() ? 2 : 16, 0, 100));
            rig.settle();
            assertEquals(1, subject.received(), "the raw peer's first message");
            if (!starved()) {
                send(100);
                rig.settle();
                assertEquals(2, raw.messages().size(), "the subject's first message");
            }
            reachEstablishedState();
        }

        void reachEstablishedState() throws Exception {
            rawRegion = raw.register(65536, EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ,
                    MemoryAccess.REMOTE_WRITE));
            CompletableFuture<RegisteredBuffer> r = s().register(ByteBuffer.allocateDirect(65536), RemoteAccess.LOCAL_ONLY)
                    .toCompletableFuture();
            local = rig.await(r, "local registration");
            int receivedBefore = subject.received();
            switch (state) {
                case MID_FRAGMENTED_RECEIVE -> {
                    raw.send(dataTransfer(5000, 1000));
                    rig.settle();
                    assertEquals(receivedBefore, subject.received(), "first fragment held for reassembly");
                }
                case MID_FRAGMENTED_SEND -> {
                    mustFail.add(send(20000));
                    mustFail.add(send(100));
                    rig.settle();
                    assertTrue(s().getConnectionDTO().fragmentsSent > 0, "some fragments left");
                }
                case CREDIT_STARVED -> {
                    send(100);
                    send(100);
                    rig.settle();
                    mustFail.add(send(100));
                    mustFail.add(send(100));
                    rig.settle();
                    assertTrue(s().getConnectionDTO().sendQueueDepth > 0, "messages wait for credits");
                }
                case RDMA_IN_FLIGHT -> {
                    rdmaRead(); // queued in the fabric, not executed
                }
                case CLOSING -> {
                    send(3000);
                    s().close();
                }
                default -> {
                }
            }
        }

        /** The subject's id: the connection of its engine that is not the bystander's (live or closed). */
        long findSubjectId() {
            long other = bystanderOnSubjectEngine().c().id();
            TransportDTO t = subjectEngine().getTransportDTO();
            for (ConnectionDTO d : t.connections) {
                if (d.id != other) {
                    return d.id;
                }
            }
            for (ConnectionDTO d : t.recentlyClosed) {
                if (d.id != other) {
                    return d.id;
                }
            }
            return -1;
        }

        /** The subject as its engine recorded it when it closed (every record of it), newest first. */
        List<ConnectionDTO> closedRecords() {
            List<ConnectionDTO> out = new ArrayList<>();
            for (ConnectionDTO d : subjectEngine().getTransportDTO().recentlyClosed) {
                if (d.id == subjectId) {
                    out.add(d);
                }
            }
            return out;
        }

        boolean rawUp() {
            return raw.endpoint() != null && raw.endpoint().state() == MockEndpoint.State.CONNECTED;
        }

        Outcome send(int length) {
            Outcome o = new Outcome();
            sends.add(o);
            s().send(Rig.message(length, sends.size()), (m, t) -> o.done(t));
            return o;
        }

        Outcome rdmaRead() {
            Outcome o = new Outcome();
            rdmaOps.add(o);
            s().rdmaRead(local, 0, 4096, List.of(new BufferDescriptor(rawRegion.address(), rawRegion.token(), 65536)),
                    0, (n, t) -> o.done(t));
            return o;
        }

        static byte[] dataTransfer(long remaining, int length) {
            ByteBuffer b = ByteBuffer.allocate(24 + length).order(ByteOrder.LITTLE_ENDIAN);
            DataTransfer.encodeHeader(b, 0, 10, 0, 0, remaining, length == 0 ? 0 : 24, length);
            return b.array();
        }

        static byte[] grant(int credits) {
            ByteBuffer b = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
            DataTransfer.encodeHeader(b, 0, 10, credits, 0, 0, 0, 0);
            return b.array();
        }

        void inject() throws Exception {
            switch (fault) {
                case PEER_DISCONNECT -> {
                    if (passive() || state != State.CONNECTING) { // active: armed, the request is refused
                        raw.disconnect();
                    }
                }
                case PEER_LOSS -> {
                    if (!passive() && state == State.CONNECTING) {
                        raw.close(); // the host is gone before it could accept
                    } else {
                        raw.crash();
                    }
                }
                case SEND_ERROR -> {
                    if (passive() && state == State.NEGOTIATING) {
                        // the Negotiate Response fails: it is the subject's first Send
                        subjectEndpoint().failNextPost(WorkRequestType.SEND, CompletionStatus.LOCAL_PROTECTION_ERROR);
                        raw.send(Rig.negotiateRequest(255, 1364, 8192, 1 << 20));
                    } else if (state != State.NEGOTIATING) { // active: armed at endpoint creation in that state
                        MockEndpoint e = subjectEndpoint();
                        if (e != null) {
                            e.failNextPost(WorkRequestType.SEND, CompletionStatus.LOCAL_PROTECTION_ERROR);
                        }
                        send(100);
                        if (rawUp()) {
                            raw.send(grant(passive() ? 16 : 50)); // starved states: let the send go out
                        }
                    }
                }
                case RECEIVE_ERROR -> {
                    if (rawUp()) {
                        raw.send(new byte[state == State.NEGOTIATING ? 600 : 9000]);
                    }
                }
                case RDMA_ERROR -> {
                    raw.deregister(rawRegion);
                    if (state != State.RDMA_IN_FLIGHT) {
                        rdmaRead();
                    }
                }
                case REGISTRATION_FAILURE -> {
                    if (state == State.NEGOTIATING) {
                        subjectDevice().failNextRegistrations(1);
                        raw.send(passive() ? Rig.negotiateRequest(255, 1364, 8192, 1 << 20)
                                : Rig.negotiateResponse(255, 1364, 8192, 1 << 20));
                    } else if (state != State.CONNECTING) {
                        subjectDevice().failNextRegistrations(1);
                        CompletableFuture<RegisteredBuffer> r = s()
                                .register(ByteBuffer.allocateDirect(4096), RemoteAccess.READ).toCompletableFuture();
                        rig.settle();
                        assertTrue(r.isCompletedExceptionally(), "registration failed");
                        // a closing connection refuses it before the provider sees it: disarm
                        subjectDevice().failNextRegistrations(0);
                        if (state != State.CLOSING) {
                            // the connection survives a failed registration: it still receives
                            assertTrue(s().isOpen(), "open after a failed registration");
                            int before = subject.received();
                            if (state == State.MID_FRAGMENTED_RECEIVE) {
                                for (int left = 5000; left > 0;) { // completes the 6000-byte message
                                    int n = Math.min(1300, left);
                                    left -= n;
                                    raw.send(dataTransfer(left, n));
                                }
                            } else {
                                raw.send(dataTransfer(0, 10));
                            }
                            rig.settle();
                            assertEquals(before + 1, subject.received());
                            s().close();
                        }
                    }
                }
                case DEVICE_REMOVAL -> subjectDevice().removeDevice();
                case PROVIDER_GONE -> subjectEngine().shutdown(CloseReason.of(Kind.PROVIDER_GONE, "provider left"));
                case TIMEOUT -> {
                    // the timers do it; awaitClosed advances virtual time
                }
                case LOCAL_CLOSE_OTHER_THREAD -> {
                    Thread t;
                    if (reachesUpperLayer()) {
                        t = new Thread(() -> s().close(), "closer");
                    } else {
                        // before negotiation only the operator's close by id reaches the connection
                        assertTrue(subjectId >= 0, "the subject connection exists");
                        t = new Thread(() -> subjectEngine().closeConnection(subjectId,
                                CloseReason.of(Kind.LOCAL_CLOSE, "closed by the operator")), "closer");
                    }
                    t.start();
                    t.join(30_000);
                    assertFalse(t.isAlive(), "close returned");
                }
            }
        }

        Kind expected() {
            if (state == State.CLOSING) {
                return Kind.LOCAL_CLOSE; // the first reason wins
            }
            if (passive()) {
                return switch (fault) {
                    case PEER_DISCONNECT -> early() ? Kind.CONNECT_FAILED : Kind.PEER_DISCONNECT;
                    case PEER_LOSS -> early() ? Kind.NEGOTIATION_TIMEOUT
                            : starved() ? Kind.CREDIT_GRANT_TIMEOUT : Kind.PROVIDER_ERROR;
                    // (negotiating: the Negotiate Response fails after the upper layer was told)
                    case SEND_ERROR -> Kind.PROVIDER_ERROR;
                    case RECEIVE_ERROR -> early() ? Kind.CONNECT_FAILED : Kind.PROVIDER_ERROR;
                    case RDMA_ERROR -> Kind.PROVIDER_ERROR;
                    // connect request: the initial region cannot be registered, the request is
                    // rejected; negotiating: R-3.1.5.6-17, a failure response
                    case REGISTRATION_FAILURE -> early() ? Kind.RESOURCE_LIMIT : Kind.LOCAL_CLOSE;
                    case DEVICE_REMOVAL -> Kind.DEVICE_REMOVED;
                    case PROVIDER_GONE -> Kind.PROVIDER_GONE;
                    case TIMEOUT -> early() ? Kind.NEGOTIATION_TIMEOUT
                            : starved() ? Kind.CREDIT_GRANT_TIMEOUT : Kind.KEEPALIVE_TIMEOUT;
                    case LOCAL_CLOSE_OTHER_THREAD -> Kind.LOCAL_CLOSE;
                };
            }
            return switch (fault) {
                case PEER_DISCONNECT -> early() ? Kind.CONNECT_FAILED : Kind.PEER_DISCONNECT;
                case PEER_LOSS -> state == State.CONNECTING ? Kind.CONNECT_FAILED
                        : state == State.NEGOTIATING ? Kind.NEGOTIATION_TIMEOUT
                        : starved() ? Kind.CREDIT_GRANT_TIMEOUT : Kind.PROVIDER_ERROR;
                case SEND_ERROR, RECEIVE_ERROR -> early() ? Kind.CONNECT_FAILED : Kind.PROVIDER_ERROR;
                case RDMA_ERROR -> Kind.PROVIDER_ERROR;
                case REGISTRATION_FAILURE -> state == State.CONNECTING ? Kind.CONNECT_FAILED
                        : state == State.NEGOTIATING ? Kind.RESOURCE_LIMIT : Kind.LOCAL_CLOSE;
                case DEVICE_REMOVAL -> Kind.DEVICE_REMOVED;
                case PROVIDER_GONE -> Kind.PROVIDER_GONE;
                case TIMEOUT -> early() ? Kind.NEGOTIATION_TIMEOUT
                        : starved() ? Kind.CREDIT_GRANT_TIMEOUT : Kind.KEEPALIVE_TIMEOUT;
                case LOCAL_CLOSE_OTHER_THREAD -> Kind.LOCAL_CLOSE;
            };
        }

        /** The virtual time within which the close must have finished. */
        Duration bound() {
            Kind k = expected();
            return switch (k) {
                case NEGOTIATION_TIMEOUT -> passive() ? PASSIVE_NEGOTIATION : CONNECT_TIMEOUT;
                case KEEPALIVE_TIMEOUT -> KEEPALIVE.plus(KEEPALIVE_RESPONSE);
                case CREDIT_GRANT_TIMEOUT -> CREDIT_GRANT;
                case PROVIDER_ERROR -> fault == Fault.PEER_LOSS ? KEEPALIVE : Duration.ZERO;
                default -> Duration.ZERO;
            };
        }

        boolean closed() {
            if (passive()) {
                return !closedRecords().isEmpty() && (acceptCalls.get() == 0 || subject.closed.isDone())
                        && !hasLiveSubjectEndpoint();
            }
            return early() ? connect.isDone() && subjectEndpoint() == null && !hasLiveSubjectEndpoint()
                    : subject.closed.isDone();
        }

        boolean hasLiveSubjectEndpoint() {
            for (MockEndpoint e : subjectDevice().endpoints()) {
                if (bystanderEndpoint(e)) {
                    continue;
                }
                return true;
            }
            return false;
        }

        boolean bystanderEndpoint(MockEndpoint e) {
            return e.peer() != null && e.peer().provider() == bystanderPeerDevice();
        }

        Duration awaitClosed() {
            rig.settle();
            Duration step = Duration.ofMillis(500);
            Duration waited = Duration.ZERO;
            while (!closed() && waited.compareTo(Duration.ofSeconds(60)) < 0) {
                rig.clock.advance(step);
                rig.settle();
                waited = waited.plus(step);
            }
            assertTrue(closed(), "closed within 60 s of virtual time; subject " + subject.disconnects + " connect "
                    + connect + " records " + closedRecords().size());
            return bound();
        }

        void checkToldOnce() {
            // whatever else happens later must not tell the upper layer again
            for (int i = 0; i < 60; i++) {
                rig.clock.advance(Duration.ofMillis(500));
                rig.settle();
            }
            Kind want = expected();
            if (passive()) {
                List<ConnectionDTO> records = closedRecords();
                assertEquals(1, records.size(), "recorded closed once");
                assertEquals(want.name(), kindOf(records.get(0).closeReason), records.get(0).closeReason);
                assertEquals("PASSIVE", records.get(0).role);
            }
            if (!reachesUpperLayer()) {
                assertTrue(subject.disconnects.isEmpty(), "no callback before the stage completed");
                if (passive()) {
                    // the upper layer learns of a passive connection only once it negotiated
                    assertEquals(0, acceptCalls.get(), "the accept handler is not called");
                    ListenerDTO l = subjectListener.getListenerDTO();
                    assertEquals(1, l.negotiationFailures, "the listener counts the failed negotiation once");
                    assertEquals(0, l.negotiating, "nothing negotiating");
                    assertEquals(0, l.accepted, "nothing accepted");
                    checkRawPeerTold();
                    return;
                }
                assertTrue(connect.isCompletedExceptionally(), "connect stage failed");
                Throwable t = catchJoin(connect);
                SmbDirectException e = assertInstanceOf(SmbDirectException.class, t);
                assertNotNull(e.closeReason(), "connect failure carries a CloseReason: " + e);
                assertEquals(want, e.closeReason().kind(), e.toString());
            } else {
                if (passive()) {
                    assertEquals(1, acceptCalls.get(), "accepted once");
                }
                assertEquals(1, subject.disconnects.size(), "told once: " + subject.disconnects);
                assertEquals(want, subject.disconnects.get(0).kind(), subject.disconnects.get(0).toString());
                assertFalse(s().isOpen());
                assertTrue(subject.callbackFailure == null, () -> String.valueOf(subject.callbackFailure));
            }
        }

        /** Passive, refused before negotiation: the raw peer learns how. */
        void checkRawPeerTold() {
            if (fault != Fault.REGISTRATION_FAILURE) {
                return;
            }
            if (state == State.CONNECTING) {
                assertEquals(DisconnectCause.REJECTED, raw.disconnectCause(), "the connect request is rejected");
                return;
            }
            // R-3.1.5.6-17: a failure response with STATUS_INSUFFICIENT_RESOURCES, then the disconnect
            List<RawMessage> m = raw.messages();
            assertEquals(1, m.size(), "one Negotiate Response");
            ByteBuffer b = ByteBuffer.wrap(m.get(0).bytes()).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(SmbdWire.STATUS_INSUFFICIENT_RESOURCES, b.getInt(NegotiateResponse.STATUS));
            assertNotNull(raw.disconnectCause(), "disconnected after the failure response");
        }

        static String kindOf(String closeReason) {
            assertNotNull(closeReason, "a close reason is recorded");
            return closeReason.split("[ :]", 2)[0];
        }

        static Throwable catchJoin(CompletableFuture<?> f) {
            try {
                f.join();
                return null;
            } catch (CompletionException e) {
                return e.getCause();
            }
        }

        void checkCompletions() {
            for (Outcome o : sends) {
                assertEquals(1, o.calls.get(), "each send completes exactly once");
            }
            for (Outcome o : mustFail) {
                assertNotNull(o.failure.get(), "a queued or partly sent message fails");
                SmbDirectException e = assertInstanceOf(SmbDirectException.class, o.failure.get());
                assertEquals(expected(), e.closeReason().kind(), e.toString());
            }
            for (Outcome o : rdmaOps) {
                assertEquals(1, o.calls.get(), "each RDMA operation completes exactly once");
            }
            if (fault == Fault.RDMA_ERROR) {
                assertNotNull(rdmaOps.get(rdmaOps.size() - 1).failure.get(), "the broken RDMA Read failed");
            }
            if (local != null) {
                assertFalse(local.isValid(), "registrations end with the connection");
            }
        }

        void checkReleased() {
            assertFalse(hasLiveSubjectEndpoint(),
                    "the subject's endpoint is released: " + subjectDevice().endpoints());
        }

        void checkBystander() throws Exception {
            if (engineDown()) {
                // the fault takes every connection of the device / engine: told once, same reason
                Rig.Peer b = bystanderOnSubjectEngine();
                assertEquals(1, b.disconnects.size(), b.disconnects.toString());
                assertEquals(fault == Fault.DEVICE_REMOVAL ? Kind.DEVICE_REMOVED : Kind.PROVIDER_GONE,
                        b.disconnects.get(0).kind());
                return;
            }
            assertTrue(bystander[0].disconnects.isEmpty(), "bystander untouched: " + bystander[0].disconnects);
            assertTrue(bystander[1].disconnects.isEmpty(), "bystander untouched: " + bystander[1].disconnects);
            ByteBuffer a = Rig.message(7000, 7);
            ByteBuffer b = Rig.message(300, 8);
            int r0 = bystander[0].received();
            int r1 = bystander[1].received();
            bystander[0].c().send(a);
            bystander[1].c().send(b);
            rig.settle();
            assertEquals(r1 + 1, bystander[1].received());
            assertEquals(r0 + 1, bystander[0].received());
            assertEquals(Rig.crc(a), bystander[1].checksums.get(r1));
            assertEquals(Rig.crc(b), bystander[0].checksums.get(r0));
        }

        /** Passive: the subject's listener stays open and negotiates the next connection. */
        void checkListener() throws Exception {
            if (!passive() || engineDown()) {
                return;
            }
            assertTrue(subjectListener.isOpen(), "the listener stays open");
            subjectDone = true;
            Rig.Peer next = new Rig.Peer("next");
            CompletableFuture<SmbDirectConnection> f = rig.client
                    .connect(subjectListener.localAddress(), CONNECT_TIMEOUT, next).toCompletableFuture();
            rig.settle();
            SmbDirectConnection c = rig.await(f, "the next connection to the subject's listener");
            assertEquals(1, later.size(), "the next connection was accepted");
            ByteBuffer m = Rig.message(5000, 9);
            c.send(m);
            rig.settle();
            assertEquals(List.of(Rig.crc(m)), later.get(0).checksums);
        }
    }
}
