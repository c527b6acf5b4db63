package smbdirect.rdma.mock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkRequestType;

class MemoryTest {

    private static final byte[] DATA = {10, 11, 12, 13, 14, 15, 16, 17};

    @Test
    void tokensAndAddressesAreDistinctAndNeverReused() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        Set<Integer> tokens = new HashSet<>();
        Set<Long> addresses = new HashSet<>();
        int before = f.clientEp.registeredRegions();
        for (int i = 0; i < 200; i++) {
            MemoryRegion r = f.clientEp.register(ByteBuffer.allocateDirect(16), EnumSet.of(MemoryAccess.REMOTE_READ));
            assertNotEquals(0, r.token());
            assertTrue(tokens.add(r.token()), "token reused");
            assertTrue(tokens.add(r.localKey()), "local key collides with a token");
            assertTrue(addresses.add(r.address()));
            assertEquals(16, r.length());
            assertEquals(0, r.buffer().position());
            f.clientEp.deregister(r);
        }
        assertEquals(before, f.clientEp.registeredRegions());
        f.closeAll();
    }

    @Test
    void registrationRulesOfVerbs() throws Exception {
        Fixture f = Fixture.deterministic();
        MockEndpoint ep = (MockEndpoint) f.clientDevice.createEndpoint(f.clientConfig, f.client);
        assertThrows(RdmaException.class, () -> ep.register(ByteBuffer.allocate(8), Set.of()), "heap buffer");
        assertThrows(RdmaException.class,
                () -> ep.register(ByteBuffer.allocateDirect(8), EnumSet.of(MemoryAccess.REMOTE_WRITE)),
                "REMOTE_WRITE without LOCAL_WRITE");
        assertThrows(RdmaException.class, () -> ep.register(ByteBuffer.allocateDirect(8).asReadOnlyBuffer(),
                EnumSet.of(MemoryAccess.LOCAL_WRITE)), "read-only buffer for writing");
        assertThrows(RdmaException.class, () -> ep.register(ByteBuffer.allocateDirect(0), Set.of()));
        ByteBuffer b = ByteBuffer.allocateDirect(32);
        b.position(8).limit(24);
        MemoryRegion r = ep.register(b, Set.of());
        assertEquals(16, r.length());
        MemoryRegion again = ep.register(ByteBuffer.allocateDirect(4), Set.of());
        ep.deregister(again);
        RdmaException twice = assertThrows(RdmaException.class, () -> ep.deregister(again));
        assertTrue(twice.getMessage().contains("already deregistered"), twice.getMessage());
        f.clientEp = ep;
        f.closeAll();
        assertFalse(r.isValid(), "close releases the regions");
    }

    @Test
    void regionSizeIsBoundedByTheDevice() throws Exception {
        MockFabric fabric = MockFabric.builder()
                .capabilities(new RdmaCapabilities(16, 16, 1, 0, 1024, 1, 1, 64, true)).build();
        MockEndpoint ep = (MockEndpoint) fabric.provider("p").createEndpoint(new smbdirect.api.rdma.EndpointConfig(1, 1),
                new Recorder());
        RdmaException e = assertThrows(RdmaException.class, () -> ep.register(ByteBuffer.allocateDirect(65), Set.of()));
        assertTrue(e.getMessage().contains("maxRegionSize"), e.getMessage());
        ep.close();
        fabric.assertNoLeaks();
        fabric.close();
    }

    @Test
    void rdmaWriteAndReadCopyTheBytes() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        MemoryRegion target = f.serverEp.register(ByteBuffer.allocateDirect(32),
                EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE, MemoryAccess.REMOTE_READ));
        MemoryRegion src = Fixture.region(f.clientEp, DATA);
        f.clientEp.postRdmaWrite(src, 2, 4, target.address() + 20, target.token(), 1);
        f.settle();
        assertArrayEquals(new byte[] {12, 13, 14, 15}, Fixture.bytes(target, 20, 4));
        MemoryRegion sink = f.clientEp.register(ByteBuffer.allocateDirect(8), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        f.clientEp.postRdmaRead(sink, 1, 4, target.address() + 20, target.token(), 2);
        f.settle();
        assertArrayEquals(new byte[] {0, 12, 13, 14, 15, 0, 0, 0}, Fixture.bytes(sink, 0, 8));
        assertEquals(4, f.client.completions(WorkRequestType.RDMA_READ).get(0).byteLength());
        assertEquals(4, f.client.completions(WorkRequestType.RDMA_WRITE).get(0).byteLength());
        f.closeAll();
    }

    private void assertRemoteAccessError(Fixture f, WorkRequestType type) {
        f.settle();
        assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, f.client.completions(type).get(0).status());
        assertEquals(DisconnectCause.QP_ERROR, f.client.cause);
        assertEquals(DisconnectCause.QP_ERROR, f.server.cause);
        assertTrue(f.client.detail.contains("remote access error"), f.client.detail);
    }

    @Test
    void rdmaWriteBeyondTheRegionIsARemoteAccessError() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        MemoryRegion target = f.serverEp.register(ByteBuffer.allocateDirect(16),
                EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
        MemoryRegion src = Fixture.region(f.clientEp, DATA);
        f.clientEp.postRdmaWrite(src, 0, 8, target.address() + 9, target.token(), 1);
        assertRemoteAccessError(f, WorkRequestType.RDMA_WRITE);
        assertArrayEquals(new byte[16], Fixture.bytes(target, 0, 16), "nothing was written");
        f.closeAll();
    }

    @Test
    void rdmaBelowTheRegionAddressIsARemoteAccessError() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        MemoryRegion target = f.serverEp.register(ByteBuffer.allocateDirect(16), EnumSet.of(MemoryAccess.REMOTE_READ));
        MemoryRegion sink = f.clientEp.register(ByteBuffer.allocateDirect(8), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        f.clientEp.postRdmaRead(sink, 0, 4, target.address() - 1, target.token(), 1);
        assertRemoteAccessError(f, WorkRequestType.RDMA_READ);
        f.closeAll();
    }

    @Test
    void rdmaReadWithoutRemoteReadAccessIsARemoteAccessError() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        MemoryRegion target = f.serverEp.register(ByteBuffer.allocateDirect(16),
                EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
        MemoryRegion sink = f.clientEp.register(ByteBuffer.allocateDirect(8), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        f.clientEp.postRdmaRead(sink, 0, 4, target.address(), target.token(), 1);
        assertRemoteAccessError(f, WorkRequestType.RDMA_READ);
        f.closeAll();
    }

    @Test
    void rdmaWithAWrongTokenIsARemoteAccessError() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        MemoryRegion target = f.serverEp.register(ByteBuffer.allocateDirect(16), EnumSet.of(MemoryAccess.REMOTE_READ));
        MemoryRegion sink = f.clientEp.register(ByteBuffer.allocateDirect(8), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        f.clientEp.postRdmaRead(sink, 0, 4, target.address(), target.token() ^ 1, 1);
        assertRemoteAccessError(f, WorkRequestType.RDMA_READ);
        f.closeAll();
    }

    @Test
    void registrationsAreScopedToTheirConnection() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        // a region of the client's own endpoint is not reachable through the connection
        MemoryRegion own = f.clientEp.register(ByteBuffer.allocateDirect(16), EnumSet.of(MemoryAccess.REMOTE_READ));
        MemoryRegion sink = f.clientEp.register(ByteBuffer.allocateDirect(8), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        f.clientEp.postRdmaRead(sink, 0, 4, own.address(), own.token(), 1);
        assertRemoteAccessError(f, WorkRequestType.RDMA_READ);
        f.closeAll();
    }

    @Test
    void rdmaAfterDeregistrationIsARemoteAccessError() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        MemoryRegion target = f.serverEp.register(ByteBuffer.allocateDirect(16), EnumSet.of(MemoryAccess.REMOTE_READ));
        f.serverEp.deregister(target);
        MemoryRegion sink = f.clientEp.register(ByteBuffer.allocateDirect(8), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        f.clientEp.postRdmaRead(sink, 0, 4, target.address(), target.token(), 1);
        assertRemoteAccessError(f, WorkRequestType.RDMA_READ);
        f.closeAll();
    }

    @Test
    void rdmaAfterLocalInvalidateIsARemoteAccessError() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        MemoryRegion target = f.serverEp.register(ByteBuffer.allocateDirect(16), EnumSet.of(MemoryAccess.REMOTE_READ));
        f.serverEp.postLocalInvalidate(target, 9);
        f.settle();
        assertEquals(CompletionStatus.SUCCESS, f.server.completions(WorkRequestType.LOCAL_INVALIDATE).get(0).status());
        assertFalse(target.isValid());
        MemoryRegion sink = f.clientEp.register(ByteBuffer.allocateDirect(8), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        f.clientEp.postRdmaRead(sink, 0, 4, target.address(), target.token(), 1);
        assertRemoteAccessError(f, WorkRequestType.RDMA_READ);
        f.closeAll();
    }

    @Test
    void sendWithInvalidateInvalidatesTheReceiversRegionAndReportsTheToken() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        MemoryRegion exposed = f.serverEp.register(ByteBuffer.allocateDirect(16),
                EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE));
        MemoryRegion src = Fixture.region(f.clientEp, DATA);
        f.clientEp.postSendWithInvalidate(src, 0, 8, exposed.token(), 1);
        f.settle();
        Recorder.Completion rc = f.server.completions(WorkRequestType.RECEIVE).get(0);
        assertEquals(CompletionStatus.SUCCESS, rc.status());
        assertTrue(rc.invalidated());
        assertEquals(exposed.token(), rc.token());
        assertFalse(exposed.isValid());
        f.clientEp.postRdmaWrite(src, 0, 4, exposed.address(), exposed.token(), 2);
        assertRemoteAccessError(f, WorkRequestType.RDMA_WRITE);
        f.closeAll();
    }

    @Test
    void sendWithInvalidateOfAnUnknownTokenBreaksTheConnection() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        MemoryRegion src = Fixture.region(f.clientEp, DATA);
        f.clientEp.postSendWithInvalidate(src, 0, 8, 0x1234_5678, 1);
        f.settle();
        assertEquals(CompletionStatus.REMOTE_INVALID_REQUEST, f.client.completions(WorkRequestType.SEND).get(0).status());
        assertEquals(CompletionStatus.LOCAL_PROTECTION_ERROR,
                f.server.completions(WorkRequestType.RECEIVE).get(0).status());
        assertEquals(DisconnectCause.QP_ERROR, f.client.cause);
        assertEquals(DisconnectCause.QP_ERROR, f.server.cause);
        f.closeAll();
    }

    @Test
    void sendWithInvalidateIsRefusedWhenTheDeviceLacksIt() throws Exception {
        MockFabric fabric = MockFabric.builder()
                .capabilities(new RdmaCapabilities(16, 16, 1, 0, 1 << 20, 4, 4, 1 << 20, false)).build();
        Fixture f = new Fixture(fabric);
        f.connect();
        MemoryRegion src = Fixture.region(f.clientEp, DATA);
        assertThrows(RdmaException.class, () -> f.clientEp.postSendWithInvalidate(src, 0, 8, 1, 1));
        assertEquals(MockEndpoint.State.CONNECTED, f.clientEp.state());
        f.closeAll();
    }

    @Test
    void postNamingADeregisteredLocalRegionIsALocalProtectionError() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        MemoryRegion src = Fixture.region(f.clientEp, DATA);
        f.clientEp.deregister(src);
        f.clientEp.postSend(src, 0, 8, 1);
        f.settle();
        assertEquals(CompletionStatus.LOCAL_PROTECTION_ERROR, f.client.completions(WorkRequestType.SEND).get(0).status());
        assertEquals(0, f.server.completions(WorkRequestType.RECEIVE).stream()
                .filter(c -> c.status() == CompletionStatus.SUCCESS).count(), "nothing was transmitted");
        assertEquals(DisconnectCause.QP_ERROR, f.client.cause);
        f.closeAll();
    }

    @Test
    void receiveIntoADeregisteredRegionIsALocalProtectionErrorWhenTheSendArrives() throws Exception {
        Fixture f = Fixture.deterministic();
        f.serverReceives = 0;
        f.connect();
        MemoryRegion r = f.serverEp.register(ByteBuffer.allocateDirect(16), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        f.serverEp.postReceive(r, 0, 16, 5);
        f.serverEp.deregister(r);
        MemoryRegion src = Fixture.region(f.clientEp, DATA);
        f.clientEp.postSend(src, 0, 8, 1);
        f.settle();
        assertEquals(CompletionStatus.LOCAL_PROTECTION_ERROR,
                f.server.completions(WorkRequestType.RECEIVE).get(0).status());
        assertEquals(DisconnectCause.QP_ERROR, f.server.cause);
        f.closeAll();
    }

    @Test
    void receiveWithoutLocalWriteOrOutsideItsRegionFails() throws Exception {
        Fixture f = Fixture.deterministic();
        f.connect();
        MemoryRegion readOnly = Fixture.region(f.serverEp, new byte[8]);
        f.serverEp.postReceive(readOnly, 0, 8, 5);
        f.settle();
        assertEquals(CompletionStatus.LOCAL_PROTECTION_ERROR, f.server.completions(WorkRequestType.RECEIVE).get(0).status());
        assertEquals(DisconnectCause.QP_ERROR, f.server.cause);
        f.closeAll();

        Fixture g = Fixture.deterministic();
        g.connect();
        MemoryRegion small = Fixture.region(g.serverEp, new byte[8], MemoryAccess.LOCAL_WRITE);
        g.serverEp.postReceive(small, 4, 8, 6);
        g.settle();
        assertEquals(CompletionStatus.LOCAL_PROTECTION_ERROR, g.server.completions(WorkRequestType.RECEIVE).get(0).status());
        g.closeAll();
    }

    @Test
    void injectedRegistrationFailuresHitTheNextRegistrationsOnly() throws Exception {
        Fixture f = Fixture.deterministic();
        MockEndpoint ep = (MockEndpoint) f.clientDevice.createEndpoint(f.clientConfig, f.client);
        f.clientDevice.failNextRegistrations(2);
        assertThrows(RdmaException.class, () -> ep.register(ByteBuffer.allocateDirect(8), Set.of()));
        assertThrows(RdmaException.class, () -> ep.register(ByteBuffer.allocateDirect(8), Set.of()));
        ep.register(ByteBuffer.allocateDirect(8), Set.of());
        assertEquals(1, ep.registeredRegions());
        f.clientEp = ep;
        f.closeAll();
    }
}
