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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.Named;
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
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.wire.DataTransfer;
import smbdirect.impl.wire.NegotiateResponse;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockEndpoint;
import smbdirect.rdma.mock.RawPeer;

/**
 * The fault matrix: every connection state x every fault that can occur in it, on the mock fabric
 * in DETERMINISTIC mode and virtual time. The subject is an ACTIVE engine connection whose far end
 * is a {@link RawPeer} (so each state can be held exactly); a bystander pair of engine connections
 * runs on the same two engines.
 *
 * <p>For every case: the upper layer is told exactly once with the expected reason (the connect
 * stage before negotiation completed, {@code onDisconnected} after); every send and RDMA
 * completion is called exactly once and the queued ones fail; the close completes within a bound
 * of virtual time; the subject's endpoint is released at once; the bystander keeps exchanging
 * messages (unless the fault takes the whole device or engine down, when it is told once with the
 * same reason); and at the end the fabric holds nothing ({@code assertNoLeaks}).
 */
class FaultMatrixTest {

    enum State {
        CONNECTING, NEGOTIATING, ESTABLISHED_IDLE, MID_FRAGMENTED_RECEIVE, MID_FRAGMENTED_SEND, CREDIT_STARVED,
        RDMA_IN_FLIGHT, CLOSING
    }

    enum Fault {
        PEER_DISCONNECT, PEER_LOSS, SEND_ERROR, RECEIVE_ERROR, RDMA_ERROR, REGISTRATION_FAILURE, DEVICE_REMOVAL,
        PROVIDER_GONE, TIMEOUT, LOCAL_CLOSE_OTHER_THREAD
    }

    static final Duration KEEPALIVE = Duration.ofSeconds(10);
    static final Duration KEEPALIVE_RESPONSE = Duration.ofSeconds(5);
    static final Duration CREDIT_GRANT = Duration.ofSeconds(5);
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(20);
    static final TransportSettings SETTINGS = TransportSettings.builder().keepaliveInterval(KEEPALIVE)
            .keepaliveResponseTimeout(KEEPALIVE_RESPONSE).creditGrantTimeout(CREDIT_GRANT).build();

    /** Why a combination cannot exist, or null when it applies. */
    static String inapplicable(State s, Fault f) {
        boolean early = s == State.CONNECTING || s == State.NEGOTIATING;
        if (early && f == Fault.LOCAL_CLOSE_OTHER_THREAD) {
            return "no connection handle exists before the connect stage completes";
        }
        if (early && f == Fault.RDMA_ERROR) {
            return "no RDMA is possible before negotiation completed";
        }
        if (s == State.CONNECTING && (f == Fault.SEND_ERROR || f == Fault.RECEIVE_ERROR)) {
            return "no message can be sent or received before the RDMA connection exists";
        }
        return null;
    }

    static Stream<Arguments> cases(State s) {
        List<Arguments> out = new ArrayList<>();
        for (Fault f : Fault.values()) {
            String why = inapplicable(s, f);
            if (why == null) {
                out.add(Arguments.of(Named.of(f.name(), f)));
            }
        }
        return out.stream();
    }

    static Stream<Arguments> connecting() {
        return cases(State.CONNECTING);
    }

    static Stream<Arguments> negotiating() {
        return cases(State.NEGOTIATING);
    }

    static Stream<Arguments> established() {
        return cases(State.ESTABLISHED_IDLE);
    }

    static Stream<Arguments> midReceive() {
        return cases(State.MID_FRAGMENTED_RECEIVE);
    }

    static Stream<Arguments> midSend() {
        return cases(State.MID_FRAGMENTED_SEND);
    }

    static Stream<Arguments> starved() {
        return cases(State.CREDIT_STARVED);
    }

    static Stream<Arguments> rdma() {
        return cases(State.RDMA_IN_FLIGHT);
    }

    static Stream<Arguments> closing() {
        return cases(State.CLOSING);
    }

    @ParameterizedTest(name = "connecting x {0}")
    @MethodSource("connecting")
    void connecting(Fault f) throws Exception {
        new Case(State.CONNECTING, f).run();
    }

    @ParameterizedTest(name = "negotiating x {0}")
    @MethodSource("negotiating")
    void negotiating(Fault f) throws Exception {
        new Case(State.NEGOTIATING, f).run();
    }

    @ParameterizedTest(name = "established idle x {0}")
    @MethodSource("established")
    void establishedIdle(Fault f) throws Exception {
        new Case(State.ESTABLISHED_IDLE, f).run();
    }

    @ParameterizedTest(name = "mid-fragmented receive x {0}")
    @MethodSource("midReceive")
    void midFragmentedReceive(Fault f) throws Exception {
        new Case(State.MID_FRAGMENTED_RECEIVE, f).run();
    }

    @ParameterizedTest(name = "mid-fragmented send x {0}")
    @MethodSource("midSend")
    void midFragmentedSend(Fault f) throws Exception {
        new Case(State.MID_FRAGMENTED_SEND, f).run();
    }

    @ParameterizedTest(name = "credit-starved x {0}")
    @MethodSource("starved")
    void creditStarved(Fault f) throws Exception {
        new Case(State.CREDIT_STARVED, f).run();
    }

    @ParameterizedTest(name = "RDMA in flight x {0}")
    @MethodSource("rdma")
    void rdmaInFlight(Fault f) throws Exception {
        new Case(State.RDMA_IN_FLIGHT, f).run();
    }

    @ParameterizedTest(name = "closing x {0}")
    @MethodSource("closing")
    void closing(Fault f) throws Exception {
        new Case(State.CLOSING, f).run();
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

        Case(State state, Fault fault) {
            this.state = state;
            this.fault = fault;
        }

        SmbDirectConnection s() {
            return connect.join();
        }

        boolean early() {
            return state == State.CONNECTING || state == State.NEGOTIATING;
        }

        MockEndpoint subjectEndpoint() {
            for (MockEndpoint e : rig.clientDevice.endpoints()) {
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
                InetSocketAddress at = raw.listen(new InetSocketAddress(raw.provider().address(), 0));
                arm();
                connect = rig.client.connect(at, CONNECT_TIMEOUT, subject).toCompletableFuture();
                reach();
                long before = rig.clock.nanoTime();
                inject();
                Duration bound = awaitClosed();
                long took = rig.clock.nanoTime() - before;
                assertTrue(took <= bound.toNanos(), "closed after " + Duration.ofNanos(took) + ", bound " + bound);
                checkToldOnce();
                checkCompletions();
                checkReleased();
                checkBystander();
                raw.close();
                rig.closeAndAssertNoLeaks();
            }
        }

        /** Faults that must be armed before the state is reached. */
        void arm() {
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
            int granted = state == State.CREDIT_STARVED || state == State.MID_FRAGMENTED_SEND ? 2 : 255;
            ByteBuffer resp = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
            NegotiateResponse.encode(resp, 0, 0x100, 0x100, 0x100, 255, granted, 0, 1 << 20, 1364, 8192, 1 << 20);
            raw.send(resp.array());
            rig.settle();
            assertTrue(connect.isDone() && !connect.isCompletedExceptionally(), "negotiated");
            rawRegion = raw.register(65536, EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ,
                    MemoryAccess.REMOTE_WRITE));
            CompletableFuture<RegisteredBuffer> r = s().register(ByteBuffer.allocateDirect(65536), RemoteAccess.NONE)
                    .toCompletableFuture();
            local = rig.await(r, "local registration");
            switch (state) {
                case MID_FRAGMENTED_RECEIVE -> {
                    raw.send(dataTransfer(5000, 1000));
                    rig.settle();
                    assertEquals(0, subject.received(), "first fragment held for reassembly");
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
                    if (state != State.CONNECTING) { // armed: the request is refused when it arrives
                        raw.disconnect();
                    }
                }
                case PEER_LOSS -> {
                    if (state == State.CONNECTING) {
                        raw.close(); // the host is gone before it could accept
                    } else {
                        raw.crash();
                    }
                }
                case SEND_ERROR -> {
                    if (state != State.NEGOTIATING) { // armed at endpoint creation in that state
                        MockEndpoint e = subjectEndpoint();
                        if (e != null) {
                            e.failNextPost(WorkRequestType.SEND, CompletionStatus.LOCAL_PROTECTION_ERROR);
                        }
                        send(100);
                        if (rawUp()) {
                            raw.send(grant(50)); // starved states: let the send go out
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
                        rig.clientDevice.failNextRegistrations(1);
                        ByteBuffer resp = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
                        NegotiateResponse.encode(resp, 0, 0x100, 0x100, 0x100, 255, 255, 0, 1 << 20, 1364, 8192,
                                1 << 20);
                        raw.send(resp.array());
                    } else if (state != State.CONNECTING) {
                        rig.clientDevice.failNextRegistrations(1);
                        CompletableFuture<RegisteredBuffer> r = s()
                                .register(ByteBuffer.allocateDirect(4096), RemoteAccess.READ).toCompletableFuture();
                        rig.settle();
                        assertTrue(r.isCompletedExceptionally(), "registration failed");
                        if (state != State.CLOSING) {
                            // the connection survives a failed registration: it still receives
                            assertTrue(s().isOpen(), "open after a failed registration");
                            if (state == State.MID_FRAGMENTED_RECEIVE) {
                                for (int left = 5000; left > 0;) { // completes the 6000-byte message
                                    int n = Math.min(1300, left);
                                    left -= n;
                                    raw.send(dataTransfer(left, n));
                                }
                                rig.settle();
                                assertEquals(1, subject.received());
                            } else {
                                raw.send(dataTransfer(0, 10));
                                rig.settle();
                                assertEquals(1, subject.received());
                            }
                            s().close();
                        }
                    }
                }
                case DEVICE_REMOVAL -> rig.clientDevice.removeDevice();
                case PROVIDER_GONE -> rig.client.shutdown(CloseReason.of(Kind.PROVIDER_GONE, "provider left"));
                case TIMEOUT -> {
                    // the timers do it; awaitClosed advances virtual time
                }
                case LOCAL_CLOSE_OTHER_THREAD -> {
                    Thread t = new Thread(() -> s().close(), "closer");
                    t.start();
                    t.join(30_000);
                    assertFalse(t.isAlive(), "close() returned");
                }
            }
        }

        Kind expected() {
            if (state == State.CLOSING) {
                return Kind.LOCAL_CLOSE; // the first reason wins
            }
            boolean starved = state == State.CREDIT_STARVED || state == State.MID_FRAGMENTED_SEND;
            return switch (fault) {
                case PEER_DISCONNECT -> early() ? Kind.CONNECT_FAILED : Kind.PEER_DISCONNECT;
                case PEER_LOSS -> state == State.CONNECTING ? Kind.CONNECT_FAILED
                        : state == State.NEGOTIATING ? Kind.NEGOTIATION_TIMEOUT
                        : starved ? Kind.CREDIT_GRANT_TIMEOUT : Kind.PROVIDER_ERROR;
                case SEND_ERROR, RECEIVE_ERROR -> early() ? Kind.CONNECT_FAILED : Kind.PROVIDER_ERROR;
                case RDMA_ERROR -> Kind.PROVIDER_ERROR;
                case REGISTRATION_FAILURE -> state == State.CONNECTING ? Kind.CONNECT_FAILED
                        : state == State.NEGOTIATING ? Kind.RESOURCE_LIMIT : Kind.LOCAL_CLOSE;
                case DEVICE_REMOVAL -> Kind.DEVICE_REMOVED;
                case PROVIDER_GONE -> Kind.PROVIDER_GONE;
                case TIMEOUT -> early() ? Kind.NEGOTIATION_TIMEOUT
                        : starved ? Kind.CREDIT_GRANT_TIMEOUT : Kind.KEEPALIVE_TIMEOUT;
                case LOCAL_CLOSE_OTHER_THREAD -> Kind.LOCAL_CLOSE;
            };
        }

        /** The virtual time within which the close must have finished. */
        Duration bound() {
            Kind k = expected();
            return switch (k) {
                case NEGOTIATION_TIMEOUT -> CONNECT_TIMEOUT;
                case KEEPALIVE_TIMEOUT -> KEEPALIVE.plus(KEEPALIVE_RESPONSE);
                case CREDIT_GRANT_TIMEOUT -> CREDIT_GRANT;
                case PROVIDER_ERROR -> fault == Fault.PEER_LOSS ? KEEPALIVE : Duration.ZERO;
                default -> Duration.ZERO;
            };
        }

        boolean closed() {
            return early() ? connect.isDone() && subjectEndpoint() == null && !hasLiveSubjectEndpoint()
                    : subject.closed.isDone();
        }

        boolean hasLiveSubjectEndpoint() {
            for (MockEndpoint e : rig.clientDevice.endpoints()) {
                if (bystanderEndpoint(e)) {
                    continue;
                }
                return true;
            }
            return false;
        }

        boolean bystanderEndpoint(MockEndpoint e) {
            return e.peer() != null && e.peer().provider() == rig.serverDevice;
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
                    + connect);
            return bound();
        }

        void checkToldOnce() {
            // whatever else happens later must not tell the upper layer again
            for (int i = 0; i < 60; i++) {
                rig.clock.advance(Duration.ofMillis(500));
                rig.settle();
            }
            Kind want = expected();
            if (early()) {
                assertTrue(connect.isCompletedExceptionally(), "connect stage failed");
                Throwable t = catchJoin(connect);
                SmbDirectException e = assertInstanceOf(SmbDirectException.class, t);
                assertNotNull(e.closeReason(), "connect failure carries a CloseReason: " + e);
                assertEquals(want, e.closeReason().kind(), e.toString());
                assertTrue(subject.disconnects.isEmpty(), "no callback before the stage completed");
            } else {
                assertEquals(1, subject.disconnects.size(), "told once: " + subject.disconnects);
                assertEquals(want, subject.disconnects.get(0).kind(), subject.disconnects.get(0).toString());
                assertFalse(s().isOpen());
                assertTrue(subject.callbackFailure == null, () -> String.valueOf(subject.callbackFailure));
            }
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
            assertFalse(hasLiveSubjectEndpoint(), "the subject's endpoint is released: " + rig.clientDevice.endpoints());
        }

        void checkBystander() throws Exception {
            boolean engineDown = fault == Fault.DEVICE_REMOVAL || fault == Fault.PROVIDER_GONE;
            if (engineDown) {
                // the fault takes every connection of the device / engine: told once, same reason
                assertEquals(1, bystander[0].disconnects.size(), bystander[0].disconnects.toString());
                assertEquals(fault == Fault.DEVICE_REMOVAL ? Kind.DEVICE_REMOVED : Kind.PROVIDER_GONE,
                        bystander[0].disconnects.get(0).kind());
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
    }
}
