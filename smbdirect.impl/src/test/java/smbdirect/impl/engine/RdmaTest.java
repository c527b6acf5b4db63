package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectException;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.RdmaCapabilities;

/** Registration, deregistration and RDMA Read/Write (3.1.4.3 - 3.1.4.6). */
class RdmaTest {

    final Harness h = new Harness();
    final List<long[]> done = new ArrayList<>();
    final List<Throwable> failures = new ArrayList<>();

    Connection established() {
        Connection c = h.active(10, 10, 1024, 1024, 131072);
        h.provider.last().completeSends();
        return c;
    }

    RegisteredBuffer register(Connection c, int size, RemoteAccess access) {
        return c.register(ByteBuffer.allocateDirect(size), access).toCompletableFuture().join();
    }

    void record(long bytes, Throwable failure) {
        done.add(new long[] {bytes});
        failures.add(failure);
    }

    @Test
    void R_3_1_4_3_03_leastPrivilegeAccess_A_40() {
        assertEquals(Set.of(MemoryAccess.REMOTE_READ), MemoryRegistrations.rights(RemoteAccess.READ));
        assertEquals(Set.of(MemoryAccess.REMOTE_WRITE, MemoryAccess.LOCAL_WRITE), MemoryRegistrations.rights(RemoteAccess.WRITE));
        assertEquals(Set.of(MemoryAccess.LOCAL_WRITE), MemoryRegistrations.rights(RemoteAccess.LOCAL_ONLY));
        Connection c = established();
        register(c, 4096, RemoteAccess.READ);
        FakeEndpoint e = h.provider.last();
        FakeEndpoint.Region last = null;
        for (FakeEndpoint.Region r : e.regions) {
            if (r.length() == 4096) {
                last = r;
            }
        }
        assertEquals(Set.of(MemoryAccess.REMOTE_READ), last.access);
    }

    @Test
    @DisplayName("R-3.1.4.3-01 R-3.1.4.3-07: descriptors")
    void R_3_1_4_3_07_descriptorsCoverTheBuffer() {
        Connection c = established();
        RegisteredBuffer rb = register(c, 1 << 20, RemoteAccess.WRITE);
        assertEquals(1, rb.descriptors().size());
        BufferDescriptor d = rb.descriptors().get(0);
        assertEquals(1 << 20, d.length());
        assertTrue(rb.isValid());
        assertTrue(register(c, 100, RemoteAccess.LOCAL_ONLY).descriptors().isEmpty(), "local only: nothing exposed");
    }

    @Test
    void R_3_1_4_3_04_severalRegionsWhenTheProviderLimitsTheirSize() {
        h.provider.capabilities = new RdmaCapabilities(1024, 1024, 4, 64, 1 << 30, 16, 16, 4096, true);
        Connection c = established();
        RegisteredBuffer rb = register(c, 10000, RemoteAccess.READ);
        assertEquals(3, rb.descriptors().size());
        assertEquals(10000, rb.descriptors().stream().mapToLong(BufferDescriptor::lengthAsLong).sum());
        // a local range spanning regions is split at their boundary
        RegisteredBuffer local = register(c, 10000, RemoteAccess.LOCAL_ONLY);
        c.rdmaWrite(local, 0, 10000, List.of(new BufferDescriptor(0x5000, 7, 10000)), 0, this::record);
        FakeEndpoint e = h.provider.last();
        assertEquals(3, e.rdma.size());
        e.completeRdma();
        assertEquals(10000, done.get(0)[0]);
    }

    @Test
    void R_3_1_4_3_05_registrationRequiresADirectBuffer() {
        Connection c = established();
        CompletableFuture<RegisteredBuffer> f = c.register(ByteBuffer.allocate(10), RemoteAccess.READ)
                .toCompletableFuture();
        assertTrue(f.isCompletedExceptionally());
    }

    @Test
    @DisplayName("R-3.1.4.4-01 R-3.1.4.4-02 R-3.1.4.4-04: fenced deregistration")
    void R_3_1_4_4_04_deregisterFencesWithLocalInvalidateFirst() {
        Connection c = established();
        RegisteredBuffer rb = register(c, 4096, RemoteAccess.WRITE);
        FakeEndpoint e = h.provider.last();
        int before = e.events.lastIndexOf("deregister"); // the initial region, released after negotiation
        CompletableFuture<Void> f = rb.deregister().toCompletableFuture();
        assertFalse(rb.isValid());
        assertEquals(1, e.invalidates.size());
        assertFalse(f.isDone(), "waits for the invalidate");
        assertEquals(before, e.events.lastIndexOf("deregister"), "not deregistered before the fence");
        e.completeInvalidates();
        assertTrue(f.isDone());
        assertFalse(f.isCompletedExceptionally());
        assertTrue(e.events.lastIndexOf("deregister") > e.events.lastIndexOf("invalidate"), "R-3.1.4.4-02");
        assertTrue(rb.deregister().toCompletableFuture().isDone(), "idempotent");
    }

    @Test
    @DisplayName("R-3.1.4.5-01 R-3.1.4.5-02 R-3.1.4.5-03 R-3.1.4.5-04 R-3.1.4.5-05 R-3.1.4.5-06: RDMA Write slicing")
    void R_3_1_4_5_06_writeSlicedByOffsetAcrossDescriptors() {
        Connection c = established();
        RegisteredBuffer local = register(c, 3000, RemoteAccess.LOCAL_ONLY);
        List<BufferDescriptor> remote = List.of(new BufferDescriptor(0x1000, 1, 1000),
                new BufferDescriptor(0x9000, 2, 1000), new BufferDescriptor(0x20000, 3, 2000));
        c.rdmaWrite(local, 0, 1500, remote, 700, this::record);
        FakeEndpoint e = h.provider.last();
        assertEquals(3, e.rdma.size(), "R-3.1.4.5-03: 300 + 1000 + 200 bytes");
        assertEquals(0x1000 + 700, e.rdma.get(0).remoteAddress, "R-3.1.4.5-04: first trimmed");
        assertEquals(300, e.rdma.get(0).length);
        assertEquals(1, e.rdma.get(0).remoteToken);
        assertEquals(0x9000, e.rdma.get(1).remoteAddress);
        assertEquals(1000, e.rdma.get(1).length);
        assertEquals(0x20000, e.rdma.get(2).remoteAddress);
        assertEquals(200, e.rdma.get(2).length, "R-3.1.4.5-05: last trimmed");
        c.rdmaWrite(local, 0, 1500, remote, 1800, this::record);
        assertEquals(0x9000 + 800, e.rdma.get(3).remoteAddress);
        assertEquals(200, e.rdma.get(3).length);
        assertEquals(0x20000, e.rdma.get(4).remoteAddress);
        assertEquals(1300, e.rdma.get(4).length);
        assertEquals(200, e.rdma.get(4).offset, "local bytes consumed sequentially");
        e.completeRdma();
        assertEquals(1500, done.get(0)[0]);
        assertNull(failures.get(0));
        assertEquals(2, c.rdma.writes());
    }

    @Test
    @DisplayName("R-3.1.4.6-01 R-3.1.4.6-06: RDMA Read bounded by ORD")
    void R_3_1_4_6_06_readsLimitedByOrdAndQueued() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        int ord = c.parameters().outboundReadDepth();
        RegisteredBuffer local = register(c, 64 * 1024, RemoteAccess.LOCAL_ONLY);
        List<BufferDescriptor> remote = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            remote.add(new BufferDescriptor(0x100000L * i, 100 + i, 4096));
        }
        c.rdmaRead(local, 0, 16 * 4096, remote, 0, this::record);
        assertEquals(ord, e.rdma.size(), "ORD bounds reads in flight");
        for (int round = 0; round < 4 && done.isEmpty(); round++) {
            e.completeRdma();
        }
        assertEquals(16, e.rdma.size());
        assertEquals(16 * 4096, done.get(0)[0]);
        assertEquals(1, c.rdma.reads());
    }

    @Test
    void transferTooLargeForMaxReadWriteSizeOrExtent() {
        Harness hh = new Harness(TransportSettings.builder().maxReadWriteSize(65536).build());
        Connection c = hh.active(10, 10, 1024, 1024, 131072);
        RegisteredBuffer local = register(c, 1 << 20, RemoteAccess.LOCAL_ONLY);
        c.rdmaRead(local, 0, 65537, List.of(new BufferDescriptor(0, 1, 1 << 20)), 0, this::record);
        assertEquals(SmbDirectException.Kind.TRANSFER_TOO_LARGE, ((SmbDirectException) failures.get(0)).kind());
        c.rdmaRead(local, 0, 4096, List.of(new BufferDescriptor(0, 1, 4096)), 1, this::record);
        assertEquals(SmbDirectException.Kind.TRANSFER_TOO_LARGE, ((SmbDirectException) failures.get(1)).kind());
        assertTrue(c.isOpen(), "a refused transfer leaves the connection alone");
    }

    @Test
    void R_3_1_4_5_07_rdmaFailureReportedAndConnectionClosed() {
        Connection c = established();
        RegisteredBuffer local = register(c, 4096, RemoteAccess.LOCAL_ONLY);
        c.rdmaWrite(local, 0, 4096, List.of(new BufferDescriptor(0, 1, 4096)), 0, this::record);
        FakeEndpoint e = h.provider.last();
        e.complete(e.rdma.get(0), CompletionStatus.REMOTE_ACCESS_ERROR);
        SmbDirectException x = assertInstanceOf(SmbDirectException.class, failures.get(0));
        assertEquals(SmbDirectException.Kind.PROVIDER_ERROR, x.kind());
        assertFalse(c.isOpen());
        assertEquals(CloseReason.Kind.PROVIDER_ERROR, h.recorder.disconnects.get(0).kind());
        assertTrue(h.recorder.disconnects.get(0).detail().contains("REMOTE_ACCESS_ERROR"));
        h.provider.assertNoLeaks();
    }

    @Test
    void rdmaInFlightFailsOnClose() {
        Connection c = established();
        RegisteredBuffer local = register(c, 4096, RemoteAccess.LOCAL_ONLY);
        c.rdmaWrite(local, 0, 4096, List.of(new BufferDescriptor(0, 1, 4096)), 0, this::record);
        c.close();
        assertEquals(1, failures.size());
        assertInstanceOf(SmbDirectException.class, failures.get(0));
    }

    @Test
    void peerSendWithInvalidateMarksTheRegistrationInvalid() {
        Connection c = established();
        RegisteredBuffer rb = register(c, 4096, RemoteAccess.WRITE);
        int token = rb.descriptors().get(0).token();
        h.provider.last().deliver(Harness.dt(10, 1, 0, 0, Harness.bytes(50, 1)), token);
        assertFalse(rb.isValid());
        assertEquals(token, h.recorder.tokens.get(0));
        FakeEndpoint e = h.provider.last();
        CompletableFuture<Void> f = rb.deregister().toCompletableFuture();
        assertTrue(f.isDone(), "already invalidated by the peer: no local invalidate needed");
        assertTrue(e.invalidates.isEmpty());
    }
}
