package smbdirect.impl.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason.Kind;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.RawCompletion;
import smbdirect.rdma.mock.RawPeer;
import smbdirect.testsupport.AllocationCounter;

/**
 * Limits a hostile peer cannot break (RFC 5042 threats for RDMA: memory exposure, resource
 * exhaustion): each test attacks one limit from a {@link RawPeer} and checks it holds.
 */
class HostileLimitsTest {

    private static final AllocationCounter THREADS = AllocationCounter.enabled();

    /** Bytes allocated by the current thread while {@code r} runs (DETERMINISTIC: the engine runs here). */
    private static long allocatedBy(Runnable r) {
        long tid = Thread.currentThread().getId();
        long before = THREADS.bytes(tid);
        r.run();
        return THREADS.bytes(tid) - before;
    }

    private static RawCompletion lastOf(RawPeer raw, WorkRequestType type) {
        List<RawCompletion> all = raw.completions();
        for (int i = all.size() - 1; i >= 0; i--) {
            if (all.get(i).type() == type) {
                return all.get(i);
            }
        }
        throw new AssertionError("no " + type + " completion in " + all);
    }

    @Test
    @DisplayName("RFC 5042 5.1/5.2: a registration grants exactly the requested access, only on its connection, and dies with deregistration")
    void registrationsAreLeastAccessConnectionScopedAndInvalidated() throws Exception {
        try (Rig rig = new Rig(DeliveryMode.DETERMINISTIC, TransportSettings.DEFAULTS)) {
            Rig.RawSession a = rig.rawServer(255, new Rig.Peer("a"));
            Rig.RawSession b = rig.rawServer(255, new Rig.Peer("b"));
            ByteBuffer data = ByteBuffer.allocateDirect(8192);
            for (int i = 0; i < 8192; i++) {
                data.put(i, (byte) (i ^ 0x5A));
            }
            RegisteredBuffer rb = rig.await(a.connection().register(data, RemoteAccess.READ).toCompletableFuture(),
                    "register");
            BufferDescriptor d = rb.descriptors().get(0);

            // the peer of the connection may read ...
            MemoryRegion sink = a.raw().register(8192, EnumSet.of(MemoryAccess.LOCAL_WRITE));
            a.raw().rdmaRead(sink, 0, 8192, d.offset(), d.token());
            rig.settle();
            assertEquals(CompletionStatus.SUCCESS, lastOf(a.raw(), WorkRequestType.RDMA_READ).status());
            byte[] got = new byte[8192];
            sink.buffer().duplicate().get(got);
            byte[] want = new byte[8192];
            data.duplicate().get(want);
            assertArrayEquals(want, got, "the peer read the registered bytes");

            // ... a peer on another connection of the same engine may not use the token
            MemoryRegion otherSink = b.raw().register(8192, EnumSet.of(MemoryAccess.LOCAL_WRITE));
            b.raw().rdmaRead(otherSink, 0, 16, d.offset(), d.token());
            rig.settle();
            assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, lastOf(b.raw(), WorkRequestType.RDMA_READ).status(),
                    "token is scoped to its connection");
            assertTrue(a.connection().isOpen(), "the owner's connection is not affected");

            // ... and not after deregistration
            rig.await(rb.deregister().toCompletableFuture(), "deregister");
            assertFalse(rb.isValid());
            a.raw().rdmaRead(sink, 0, 16, d.offset(), d.token());
            rig.settle();
            assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, lastOf(a.raw(), WorkRequestType.RDMA_READ).status(),
                    "deregistered token is dead");

            // READ access does not let the peer write
            Rig.RawSession c = rig.rawServer(255, new Rig.Peer("c"));
            ByteBuffer ro = ByteBuffer.allocateDirect(4096);
            RegisteredBuffer readOnly = rig.await(c.connection().register(ro, RemoteAccess.READ).toCompletableFuture(),
                    "register");
            BufferDescriptor rd = readOnly.descriptors().get(0);
            c.raw().rdmaWrite(new byte[] {1, 2, 3, 4}, rd.offset(), rd.token());
            rig.settle();
            assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, lastOf(c.raw(), WorkRequestType.RDMA_WRITE).status(),
                    "READ registration refuses writes");
            assertEquals(0, ro.get(0), "nothing written");

            // NONE exposes nothing; a closed connection's registrations are invalid
            Rig.Peer dp = new Rig.Peer("d");
            Rig.RawSession dd = rig.rawServer(255, dp);
            RegisteredBuffer none = rig.await(
                    dd.connection().register(ByteBuffer.allocateDirect(4096), RemoteAccess.LOCAL_ONLY).toCompletableFuture(),
                    "register");
            assertTrue(none.descriptors().isEmpty(), "a local-only registration has no descriptor");
            RegisteredBuffer rw = rig.await(dd.connection().register(ByteBuffer.allocateDirect(4096),
                    RemoteAccess.READ_WRITE).toCompletableFuture(), "register");
            rig.await(dd.connection().close().toCompletableFuture(), "close");
            assertFalse(rw.isValid(), "registrations end with the connection");
            assertFalse(none.isValid());
            for (RawPeer r : List.of(a.raw(), b.raw(), c.raw(), dd.raw())) {
                r.close();
            }
            rig.closeAndAssertNoLeaks();
        }
    }

    @Test
    @DisplayName("RFC 5042 5.1: tokens handed to the peer are distinct, non-zero and not predictable from each other")
    void tokensAreUnguessable() throws Exception {
        try (Rig rig = new Rig(DeliveryMode.DETERMINISTIC, TransportSettings.DEFAULTS)) {
            Rig.RawSession s = rig.rawServer(255, new Rig.Peer("s"));
            List<RegisteredBuffer> regs = new ArrayList<>();
            Set<Integer> tokens = new HashSet<>();
            Set<Long> strides = new HashSet<>();
            int ones = 0;
            int prev = 0;
            int n = 400;
            for (int i = 0; i < n; i++) {
                RegisteredBuffer rb = rig.await(
                        s.connection().register(ByteBuffer.allocateDirect(64), RemoteAccess.READ).toCompletableFuture(),
                        "register");
                regs.add(rb);
                int t = rb.descriptors().get(0).token();
                assertNotEquals(0, t, "token 0 is never handed out");
                assertTrue(tokens.add(t), "token reused: " + Integer.toHexString(t));
                if (i > 0) {
                    strides.add((long) t - prev);
                }
                prev = t;
                ones += Integer.bitCount(t);
            }
            assertTrue(strides.size() > n / 2, "no fixed stride between consecutive tokens: " + strides.size());
            double fraction = ones / (32.0 * n);
            assertTrue(fraction > 0.45 && fraction < 0.55, "token bits look random: " + fraction);
            for (RegisteredBuffer rb : regs) {
                rb.deregister();
            }
            rig.settle();
            s.raw().close();
            rig.closeAndAssertNoLeaks();
        }
    }

    @Test
    @DisplayName("R-3.1.5.6-07/08, R-3.1.5.8-05: huge sizes claimed by the peer do not drive allocation")
    void peerClaimedSizesDoNotDriveAllocation() throws Exception {
        TransportSettings s = TransportSettings.builder().maxFragmentedRecvSize(1 << 20).build();
        try (Rig rig = new Rig(DeliveryMode.DETERMINISTIC, s)) {
            // passive: a Negotiate Request claiming 4 GiB everywhere
            RawPeer raw = rig.rawClient();
            long negotiation = allocatedBy(() -> {
                try {
                    raw.send(Rig.negotiateRequest(65535, 0xFFFF_FFFFL, 0xFFFF_FFFFL, 0xFFFF_FFFFL));
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                rig.settle();
            });
            assertEquals(1, rig.accepted.size(), "negotiated");
            SmbDirectConnection c = rig.accepted.get(0).c();
            assertTrue(c.parameters().maxSendSize() <= s.maxSendSize(), "send size capped locally: " + c.parameters());
            assertTrue(c.parameters().maxReceiveSize() <= s.maxReceiveSize(), c.parameters().toString());
            assertTrue(c.getConnectionDTO().receiveCredits <= s.receiveCreditMax(), "receive credits capped");
            long budget = (long) (s.receiveCreditMax() + 2) * s.maxReceiveSize() + (1 << 20);
            assertTrue(negotiation < budget, "negotiation allocated " + negotiation + " bytes, bound " + budget);

            // a fragment announcing a message of 4 GiB: refused before anything is reserved for it
            Rig.Peer subject = rig.accepted.get(0);
            long hostile = allocatedBy(() -> {
                try {
                    raw.send(Rig.dataTransfer(1, 0xFFFF_FF00L, 100));
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                rig.settle();
            });
            assertEquals(1, subject.disconnects.size());
            assertEquals(Kind.PROTOCOL_VIOLATION, subject.disconnects.get(0).kind());
            assertEquals("R-3.1.5.8-05", subject.disconnects.get(0).rule());
            // close, log and DTO bookkeeping cost a few hundred KiB; reserving even the negotiated
            // 1 MiB for the claimed message would exceed the bound
            assertTrue(hostile < (1 << 20), "refusing a 4 GiB claim allocated " + hostile + " bytes");
            raw.close();

            // a claim exactly at the negotiated limit costs at most that limit
            RawPeer raw2 = rig.rawClient();
            raw2.send(Rig.negotiateRequest(255, 1364, 8192, 1 << 20));
            rig.settle();
            Rig.Peer second = rig.accepted.get(1);
            long atLimit = allocatedBy(() -> {
                try {
                    raw2.send(Rig.dataTransfer(1, (1 << 20) - 1000, 1000));
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                rig.settle();
            });
            assertTrue(second.disconnects.isEmpty(), "a claim within MaxFragmentedRecvSize is legal");
            assertTrue(atLimit <= (1 << 20) + 256 * 1024, "reassembly allocated " + atLimit + " bytes");
            raw2.close();
            rig.closeAndAssertNoLeaks();
        }
    }

    @Test
    @DisplayName("R-3.1.7.2-03: a flood of connects that never negotiate is shed by the caps and the 5 s timer; the listener keeps serving")
    void negotiationFloodIsShed() throws Exception {
        TransportSettings s = TransportSettings.builder().maxNegotiatingPerListener(4).maxConnectionsPerListener(6)
                .build();
        try (Rig rig = new Rig(DeliveryMode.DETERMINISTIC, s)) {
            rig.listen();
            List<RawPeer> flood = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                flood.add(rig.rawClient());
            }
            ListenerDTO l = rig.listener.getListenerDTO();
            assertEquals(12, l.connectRequests);
            assertEquals(4, l.negotiating, "maxNegotiatingPerListener holds");
            assertEquals(8, l.refused);
            long rejected = flood.stream().filter(r -> r.disconnectCause() == DisconnectCause.REJECTED).count();
            assertEquals(8, rejected, "refused requests are rejected cleanly");

            // while the flood holds the negotiating slots, a real client is refused too ...
            Rig.Peer early = new Rig.Peer("early");
            CompletableFuture<SmbDirectConnection> refused = rig.client
                    .connect(rig.listener.localAddress(), Duration.ofSeconds(20), early).toCompletableFuture();
            rig.settle();
            assertTrue(refused.isCompletedExceptionally());

            // ... until the passive Negotiation Timer (5 s) sheds them
            for (int i = 0; i < 11; i++) {
                rig.advance(Duration.ofMillis(500));
            }
            l = rig.listener.getListenerDTO();
            assertEquals(0, l.negotiating, "timer shed the silent connections");
            assertEquals(4, l.negotiationFailures);
            assertEquals(8 + 4, flood.stream().filter(r -> r.disconnectCause() != null).count());

            // the listener serves again, up to maxConnectionsPerListener
            List<Rig.Peer[]> pairs = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                pairs.add(rig.pair());
            }
            Rig.Peer extra = new Rig.Peer("extra");
            CompletableFuture<SmbDirectConnection> over = rig.client
                    .connect(rig.listener.localAddress(), Duration.ofSeconds(20), extra).toCompletableFuture();
            rig.settle();
            SmbDirectException e = assertInstanceOf(SmbDirectException.class, cause(over));
            assertEquals(Kind.CONNECT_FAILED, e.closeReason().kind(), e.toString());
            ByteBuffer m = Rig.message(3000, 3);
            pairs.get(5)[0].c().send(m);
            rig.settle();
            assertEquals(Rig.crc(m), pairs.get(5)[1].checksums.get(0), "established connections keep working");
            for (RawPeer r : flood) {
                r.close();
            }
            rig.closeAndAssertNoLeaks();
        }
    }

    @Test
    @DisplayName("receiveBufferBudget: connections beyond the global receive memory budget are refused cleanly, in both roles")
    void receiveBufferBudgetRefusesCleanly() throws Exception {
        int credits = 16;
        int recv = 8192;
        long perConnection = (long) (credits + 1) * recv + 512;
        TransportSettings s = TransportSettings.builder().receiveCreditMax(credits).maxReceiveSize(recv)
                .receiveBufferBudget(2 * perConnection + 100).build();
        try (Rig rig = new Rig(DeliveryMode.DETERMINISTIC, s, TransportSettings.builder().receiveCreditMax(credits)
                .maxReceiveSize(recv).receiveBufferBudget(3 * perConnection + 100).build())) {
            Rig.Peer[] one = rig.pair();
            Rig.Peer[] two = rig.pair();
            // passive side over budget: the request is rejected, the client's connect fails
            Rig.Peer third = new Rig.Peer("third");
            CompletableFuture<SmbDirectConnection> f = rig.client
                    .connect(rig.listener.localAddress(), Duration.ofSeconds(20), third).toCompletableFuture();
            rig.settle();
            assertTrue(f.isCompletedExceptionally(), "refused over the server's budget");
            assertEquals(1, rig.listener.getListenerDTO().refused);
            // active side over budget: fails at once with RESOURCE_LIMIT
            Rig.Peer fourth = new Rig.Peer("fourth");
            Rig.Peer fifth = new Rig.Peer("fifth");
            InetSocketAddress nowhere = new InetSocketAddress(rig.serverDevice.address(), 1);
            CompletableFuture<SmbDirectConnection> g = rig.client.connect(nowhere, Duration.ofSeconds(20), fourth)
                    .toCompletableFuture();
            CompletableFuture<SmbDirectConnection> h = rig.client.connect(nowhere, Duration.ofSeconds(20), fifth)
                    .toCompletableFuture();
            SmbDirectException e = assertInstanceOf(SmbDirectException.class, cause(h));
            assertEquals(Kind.RESOURCE_LIMIT, e.closeReason().kind(), e.toString());
            rig.settle();
            assertTrue(g.isCompletedExceptionally(), "nobody listens on port 1");
            // the budget is given back when a connection closes
            rig.await(one[0].c().close().toCompletableFuture(), "close");
            rig.settle();
            Rig.Peer[] again = rig.pair();
            ByteBuffer m = Rig.message(5000, 9);
            again[0].c().send(m);
            two[1].c().send(m.duplicate());
            rig.settle();
            assertEquals(Rig.crc(m), again[1].checksums.get(0));
            assertEquals(Rig.crc(m), two[0].checksums.get(0));
            rig.closeAndAssertNoLeaks();
        }
    }

    private static Throwable cause(CompletableFuture<?> f) {
        try {
            f.join();
            throw new AssertionError("expected a failure");
        } catch (CompletionException e) {
            return e.getCause();
        }
    }
}
