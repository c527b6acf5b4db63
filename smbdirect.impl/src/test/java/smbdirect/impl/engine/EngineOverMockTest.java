package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionParameters;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectTransport;

/** Both roles through the mock fabric: the examples of [MS-SMBD] section 4, credits, keepalive, every close path. */
class EngineOverMockTest {

    /** The settings of examples 4.1-4.5: 1 KiB messages, 10 credits, 128 KiB reassembly. */
    static final TransportSettings EXAMPLE = TransportSettings.builder().sendCreditTarget(10).receiveCreditMax(10)
            .maxSendSize(1024).maxReceiveSize(1024).maxFragmentedRecvSize(131072).maxReadWriteSize(1 << 20).build();

    MockPair pair;
    boolean serverCrashed;

    @AfterEach
    void noLeaks() {
        if (pair != null) {
            pair.close();
            pair.fabric.assertNoLeaks();
            assertEquals(0, pair.client.budgetUsed());
            if (!serverCrashed) {
                assertEquals(0, pair.server.budgetUsed());
            }
        }
    }

    @Test
    void example_4_1_establishingAConnection() {
        pair = new MockPair(EXAMPLE);
        Connection c = pair.connect();
        Connection s = pair.serverConnection();
        for (ConnectionParameters p : List.of(c.parameters(), s.parameters())) {
            assertEquals(1024, p.maxSendSize());
            assertEquals(1024, p.maxReceiveSize());
            assertEquals(131072, p.maxFragmentedSendSize());
            assertEquals(131072, p.maxFragmentedReceiveSize());
            assertEquals(1 << 20, p.maxReadWriteSize());
        }
        assertEquals(10, s.credits.sendCredits(), "the initiator's first message granted 10");
        assertEquals(10, c.credits.receiveCredits());
        assertTrue(c.isInitiator());
        assertFalse(s.isInitiator());
        assertEquals(1, pair.listener.getListenerDTO().accepted);
    }

    @Test
    void anEngineIsItsOwnTransportOnItsProviderAndRefusesAnyOtherName() throws Exception {
        pair = new MockPair(EXAMPLE);
        String own = pair.clientProvider.name();
        assertSame(pair.client, pair.client.onProvider(own));
        SmbDirectTransport other = pair.client.onProvider("iwarp");
        SmbDirectException listen = assertThrows(SmbDirectException.class,
                () -> other.listen(new InetSocketAddress(pair.clientProvider.address(), 446), c -> null));
        assertEquals(SmbDirectException.Kind.NO_PROVIDER, listen.kind());
        assertTrue(listen.getMessage().contains("'iwarp'") && listen.getMessage().contains(own), listen.getMessage());
        ExecutionException connect = assertThrows(ExecutionException.class, () -> other
                .connect(pair.listener.localAddress(), Duration.ofSeconds(1), pair.clientSide).toCompletableFuture().get());
        assertEquals(SmbDirectException.Kind.NO_PROVIDER, ((SmbDirectException) connect.getCause()).kind());
        assertEquals(0, pair.client.getTransportDTO().connections.length);
        assertEquals(own, other.getTransportDTO().providers[0].name);
    }

    private void sendBothWays(Connection c, Connection s, byte[] data) {
        List<Throwable> outcomes = new ArrayList<>();
        c.send(ByteBuffer.wrap(data), (m, x) -> outcomes.add(x));
        s.send(ByteBuffer.wrap(data), (m, x) -> outcomes.add(x));
        pair.run();
        assertEquals(2, outcomes.size());
        assertNull(outcomes.get(0));
        assertNull(outcomes.get(1));
        assertArrayEquals(data, pair.serverSide.messages.get(pair.serverSide.messages.size() - 1));
        assertArrayEquals(data, pair.clientSide.messages.get(pair.clientSide.messages.size() - 1));
    }

    @Test
    void example_4_2_and_4_3_fiveHundredBytesAnd64KiBBothWays() {
        pair = new MockPair(EXAMPLE);
        Connection c = pair.connect();
        Connection s = pair.serverConnection();
        sendBothWays(c, s, Harness.bytes(500, 1));
        sendBothWays(c, s, Harness.bytes(65536, 2));
        sendBothWays(c, s, Harness.bytes(131072, 3));
        assertTrue(c.isOpen() && s.isOpen());
    }

    @Test
    void example_4_4_and_4_5_oneMiBThroughRdmaBothWays() {
        pair = new MockPair(EXAMPLE);
        Connection c = pair.connect();
        Connection s = pair.serverConnection();
        byte[] data = Harness.bytes(1 << 20, 9);
        // 4.4: the client exposes its source for reading; the server RDMA-Reads it
        RegisteredBuffer src = c.register(MockPair.direct(data), RemoteAccess.READ).toCompletableFuture().join();
        ByteBuffer dstBuf = ByteBuffer.allocateDirect(1 << 20);
        CompletableFuture<RegisteredBuffer> dstF = s.register(dstBuf, RemoteAccess.LOCAL_ONLY).toCompletableFuture();
        pair.run();
        RegisteredBuffer dst = dstF.join();
        long[] moved = {-1};
        s.rdmaRead(dst, 0, 1 << 20, src.descriptors(), 0, (n, x) -> moved[0] = x == null ? n : -2);
        pair.run();
        assertEquals(1 << 20, moved[0]);
        byte[] got = new byte[1 << 20];
        dstBuf.duplicate().get(got);
        assertArrayEquals(data, got);
        // 4.5: the client exposes a destination for writing; the server RDMA-Writes it
        ByteBuffer sinkBuf = ByteBuffer.allocateDirect(1 << 20);
        RegisteredBuffer sink = c.register(sinkBuf, RemoteAccess.WRITE).toCompletableFuture().join();
        moved[0] = -1;
        s.rdmaWrite(dst, 0, 1 << 20, sink.descriptors(), 0, (n, x) -> moved[0] = x == null ? n : -2);
        pair.run();
        assertEquals(1 << 20, moved[0]);
        sinkBuf.duplicate().get(got);
        assertArrayEquals(data, got);
        // deregistration fences remote access (3.1.4.4)
        CompletableFuture<Void> d1 = src.deregister().toCompletableFuture();
        CompletableFuture<Void> d2 = sink.deregister().toCompletableFuture();
        CompletableFuture<Void> d3 = dst.deregister().toCompletableFuture();
        pair.run();
        assertTrue(d1.isDone() && d2.isDone() && d3.isDone());
        assertFalse(d1.isCompletedExceptionally() || d2.isCompletedExceptionally());
        // reading the deregistered buffer now fails and ends the connection
        s.rdmaRead(dst, 0, 4096, List.of(src.descriptors().get(0)), 0, (n, x) -> moved[0] = x == null ? n : -3);
        pair.run();
        assertEquals(-3, moved[0], "the local registration is gone too");
    }

    @Test
    void rdmaAfterPeerDeregistrationFailsTheTransferAndTheConnection() {
        pair = new MockPair(EXAMPLE);
        Connection c = pair.connect();
        Connection s = pair.serverConnection();
        RegisteredBuffer src = c.register(MockPair.direct(new byte[8192]), RemoteAccess.READ).toCompletableFuture()
                .join();
        CompletableFuture<RegisteredBuffer> dstF = s.register(ByteBuffer.allocateDirect(8192), RemoteAccess.LOCAL_ONLY)
                .toCompletableFuture();
        CompletableFuture<Void> gone = src.deregister().toCompletableFuture();
        pair.run();
        assertTrue(gone.isDone());
        Throwable[] failure = new Throwable[1];
        s.rdmaRead(dstF.join(), 0, 8192, src.descriptors(), 0, (n, x) -> failure[0] = x);
        pair.run();
        assertTrue(failure[0] instanceof SmbDirectException, String.valueOf(failure[0]));
        assertFalse(s.isOpen());
        assertFalse(c.isOpen());
        assertEquals(CloseReason.Kind.PROVIDER_ERROR, pair.serverSide.disconnects.get(0).kind());
    }

    @Test
    void peerLesson1_creditExhaustionAndRecoveryAtOneCreditEachWay() {
        TransportSettings one = EXAMPLE.toBuilder().sendCreditTarget(1).receiveCreditMax(1).build();
        pair = new MockPair(one);
        Connection c = pair.connect();
        Connection s = pair.serverConnection();
        List<Throwable> outcomes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            c.send(ByteBuffer.wrap(Harness.bytes(100, i)), (m, x) -> outcomes.add(x));
            s.send(ByteBuffer.wrap(Harness.bytes(200, i)), (m, x) -> outcomes.add(x));
        }
        pair.run();
        assertEquals(40, outcomes.size());
        assertTrue(outcomes.stream().allMatch(x -> x == null));
        assertEquals(20, pair.serverSide.messages.size());
        assertEquals(20, pair.clientSide.messages.size());
        for (int i = 0; i < 20; i++) {
            assertArrayEquals(Harness.bytes(100, i), pair.serverSide.messages.get(i));
            assertArrayEquals(Harness.bytes(200, i), pair.clientSide.messages.get(i));
        }
        // a fragmented message at one credit each way
        byte[] big = Harness.bytes(50000, 5);
        c.send(ByteBuffer.wrap(big), (m, x) -> outcomes.add(x));
        pair.run();
        assertArrayEquals(big, pair.serverSide.messages.get(20));
        // quiet: no endless empty-message exchange; runUntilIdle returned, so it is bounded
        long before = c.sendPath.fragmentsSent() + s.sendPath.fragmentsSent();
        pair.run();
        assertEquals(before, c.sendPath.fragmentsSent() + s.sendPath.fragmentsSent());
        assertTrue(c.credits.sendCredits() >= 1 && s.credits.sendCredits() >= 1, "both can send again");
        pair.advance(Duration.ofSeconds(30));
        assertTrue(c.isOpen() && s.isOpen(), "no credit-grant timeout");
    }

    @Test
    void peerLesson6_maxSizeFragmentedMessagesDoNotStarveCredits() {
        TransportSettings big = TransportSettings.DEFAULTS;
        pair = new MockPair(big);
        Connection c = pair.connect();
        Connection s = pair.serverConnection();
        byte[] data = Harness.bytes(1 << 20, 4);
        for (int i = 0; i < 3; i++) {
            c.send(ByteBuffer.wrap(data), (m, x) -> { });
            s.send(ByteBuffer.wrap(data), (m, x) -> { });
        }
        pair.run();
        assertEquals(3, pair.serverSide.messages.size());
        assertEquals(3, pair.clientSide.messages.size());
        assertArrayEquals(data, pair.serverSide.messages.get(2));
        assertTrue(c.isOpen() && s.isOpen());
    }

    @Test
    void keepaliveExchangeKeepsAQuietConnectionAlive() {
        pair = new MockPair(TransportSettings.DEFAULTS);
        Connection c = pair.connect();
        Connection s = pair.serverConnection();
        pair.advance(Duration.ofSeconds(121));
        assertTrue(c.timers.keepalivesSent() + s.timers.keepalivesSent() >= 1);
        assertEquals(c.timers.keepalivesSent(), s.receivePath.keepalivesReceived());
        assertEquals(s.timers.keepalivesSent(), c.receivePath.keepalivesReceived());
        pair.advance(Duration.ofMinutes(10));
        assertTrue(c.isOpen() && s.isOpen());
        assertEquals(KeepaliveRequested.NONE, c.timers.keepaliveRequested());
    }

    @Test
    void closePath_localCloseReachesThePeer() {
        pair = new MockPair(EXAMPLE);
        Connection c = pair.connect();
        Connection s = pair.serverConnection();
        c.close();
        pair.run();
        assertEquals(CloseReason.Kind.LOCAL_CLOSE, pair.clientSide.disconnects.get(0).kind());
        assertEquals(CloseReason.Kind.PEER_DISCONNECT, pair.serverSide.disconnects.get(0).kind());
        assertFalse(s.isOpen());
        assertEquals(1, pair.clientSide.disconnects.size());
        assertEquals(1, pair.serverSide.disconnects.size());
    }

    @Test
    void closePath_providerErrorOnBreak() {
        pair = new MockPair(EXAMPLE);
        Connection c = pair.connect();
        pair.fabric.endpoints().get(0).breakConnection("cable pulled");
        pair.run();
        assertFalse(c.isOpen());
        assertEquals(1, pair.clientSide.disconnects.size());
        assertEquals(1, pair.serverSide.disconnects.size());
    }

    @Test
    void closePath_deviceRemoved() {
        pair = new MockPair(EXAMPLE);
        Connection c = pair.connect();
        pair.clientProvider.removeDevice();
        pair.run();
        assertFalse(c.isOpen());
        assertEquals(CloseReason.Kind.DEVICE_REMOVED, pair.clientSide.disconnects.get(0).kind());
        pair.clientProvider.restoreDevice();
    }

    @Test
    void closePath_peerCrashIsFoundByTheKeepalive() {
        pair = new MockPair(TransportSettings.DEFAULTS);
        Connection c = pair.connect();
        Connection s = pair.serverConnection();
        serverCrashed = true;
        pair.fabric.endpoints().stream().filter(e -> e.provider() == pair.serverProvider).findFirst().get().crash();
        pair.run();
        pair.advance(Duration.ofSeconds(130));
        assertFalse(c.isOpen(), "keepalive unanswered or the fabric reported the loss");
        assertEquals(1, pair.clientSide.disconnects.size());
    }

    @Test
    void closePath_negotiationTimeoutOnASilentPeer() throws Exception {
        pair = new MockPair(EXAMPLE);
        var raw = pair.fabric.rawPeer();
        var addr = raw.listen(new java.net.InetSocketAddress(raw.provider().address(), 5445));
        CompletableFuture<SmbDirectConnection> f = pair.client.connect(addr, Duration.ofSeconds(3), pair.clientSide)
                .toCompletableFuture();
        pair.run();
        assertFalse(f.isDone());
        pair.advance(Duration.ofSeconds(3));
        assertTrue(f.isCompletedExceptionally());
        raw.close();
    }

    @Test
    void closePath_shutdownWithProviderGone() {
        pair = new MockPair(EXAMPLE);
        Connection c = pair.connect();
        pair.client.shutdown(CloseReason.of(CloseReason.Kind.PROVIDER_GONE, "provider left"));
        pair.run();
        assertEquals(CloseReason.Kind.PROVIDER_GONE, pair.clientSide.disconnects.get(0).kind());
        assertEquals(CloseReason.Kind.PEER_DISCONNECT, pair.serverSide.disconnects.get(0).kind());
        assertFalse(c.isOpen());
    }

    @Test
    void sendWithInvalidateInvalidatesThePeersRegistration() {
        pair = new MockPair(EXAMPLE);
        Connection c = pair.connect();
        Connection s = pair.serverConnection();
        RegisteredBuffer rb = c.register(ByteBuffer.allocateDirect(4096), RemoteAccess.WRITE).toCompletableFuture()
                .join();
        int token = rb.descriptors().get(0).token();
        s.sendWithInvalidate(ByteBuffer.wrap(Harness.bytes(3000, 1)), token, (m, x) -> { });
        pair.run();
        assertFalse(rb.isValid(), "remotely invalidated");
        assertEquals(1, pair.clientSide.messages.size());
        assertTrue(rb.deregister().toCompletableFuture().isDone());
    }

    @Test
    void R_3_1_5_1_13_sendWithInvalidateOfAnUnknownTokenClosesNamingTheOperationTheTokenAndThePeer() {
        pair = new MockPair(EXAMPLE);
        pair.connect();
        Connection s = pair.serverConnection();
        s.sendWithInvalidate(ByteBuffer.wrap(Harness.bytes(100, 1)), 0x7777, (m, x) -> { });
        pair.run();
        CloseReason reason = pair.serverSide.disconnects.get(0);
        assertEquals(CloseReason.Kind.PROVIDER_ERROR, reason.kind());
        assertTrue(reason.detail().startsWith("Send with Invalidate of the peer's token 0x00007777 failed:"
                + " REMOTE_INVALID_REQUEST (the peer refused it: the token is none it can invalidate"), reason.detail());
    }

    @Test
    void peerLesson2_creditsHeldNeverExceedReceivesPostedAfterEveryEvent() {
        TransportSettings t = EXAMPLE.toBuilder().sendCreditTarget(6).receiveCreditMax(6).build();
        pair = new MockPair(t);
        Connection c = pair.connect();
        Connection s = pair.serverConnection();
        smbdirect.rdma.mock.MockEndpoint ce = pair.fabric.endpoints().stream()
                .filter(e -> e.provider() == pair.clientProvider).findFirst().get();
        smbdirect.rdma.mock.MockEndpoint se = pair.fabric.endpoints().stream()
                .filter(e -> e.provider() == pair.serverProvider).findFirst().get();
        int[] checks = new int[1];
        pair.fabric.afterEachStep(() -> {
            if (!c.isOpen() || !s.isOpen()) {
                return; // teardown flushes receives
            }
            checks[0]++;
            if (c.credits.sendCredits() > se.postedReceives() || s.credits.sendCredits() > ce.postedReceives()) {
                throw new AssertionError("credits held exceed the peer's posted receives: client "
                        + c.credits + " / server posted " + se.postedReceives() + "; server " + s.credits
                        + " / client posted " + ce.postedReceives());
            }
            if (c.credits.peerCredits() < 0 || s.credits.peerCredits() < 0
                    || c.credits.receiveCredits() > c.credits.receiveCapacity()) {
                throw new AssertionError("grant bookkeeping broken: " + c.credits + " / " + s.credits);
            }
        });
        for (int i = 0; i < 60; i++) {
            c.send(ByteBuffer.wrap(Harness.bytes(100 + 37 * i, i)), (m, x) -> { });
            if (i % 2 == 0) {
                s.send(ByteBuffer.wrap(Harness.bytes(3000, i)), (m, x) -> { });
            }
        }
        pair.run();
        assertEquals(60, pair.serverSide.messages.size());
        assertEquals(30, pair.clientSide.messages.size());
        assertTrue(checks[0] > 500, "checked after every event: " + checks[0]);
    }
}
