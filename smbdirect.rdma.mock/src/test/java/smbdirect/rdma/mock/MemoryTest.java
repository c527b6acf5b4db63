package smbdirect.rdma.mock;

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
import smbdirect.rdma.tck.TckRecorder;

/**
 * Mock-specific checks (deterministic stepping, fault controls, mock state). The provider-independent
 * behaviour is in the SPI contract suite ({@code smbdirect.rdma.tck.RdmaProviderContractTest}), run
 * on the mock in every delivery mode by {@code smbdirect.rdma.mock.tck}.
 */
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
        MockEndpoint ep = (MockEndpoint) fabric.provider("p").createEndpoint(new smbdirect.api.rdma.EndpointSettings(1, 1),
                new TckRecorder());
        RdmaException e = assertThrows(RdmaException.class, () -> ep.register(ByteBuffer.allocateDirect(65), Set.of()));
        assertTrue(e.getMessage().contains("maxRegionSize"), e.getMessage());
        ep.close();
        fabric.assertNoLeaks();
        fabric.close();
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
        assertEquals(DisconnectCause.QP_ERROR, f.client.cause());
        assertEquals(DisconnectCause.QP_ERROR, f.server.cause());
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
        assertEquals(DisconnectCause.QP_ERROR, f.client.cause());
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
        assertEquals(DisconnectCause.QP_ERROR, f.server.cause());
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
        assertEquals(DisconnectCause.QP_ERROR, f.server.cause());
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
