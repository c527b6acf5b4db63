package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.TransportType;

/**
 * Once established, an endpoint reports the IRD and ORD the device put in effect on its queue pair
 * ({@code ibv_query_qp}), not those asked for: higher or lower. Linux siw reports its inbound read
 * queue as {@code max_rd_atomic}; the provider reads it as the IRD there.
 */
class ReadDepthsInEffectTest {

    private static final DeviceAttributes RNIC = new DeviceAttributes("mlx5_0", TransportType.ROCE, 1L << 40, 32768,
            30, 4194303, 16, 16, DeviceAttributes.MEM_MGT_EXTENSIONS, "16.35", DeviceAttributes.PORT_ACTIVE, 1024,
            1L << 30, 2, 0x02c9, 0, false);
    private static final DeviceAttributes SIW = new DeviceAttributes("siw0", TransportType.IWARP, 1L << 40, 1024, 6,
            1024, 16, 16, 0, "0.0.0", DeviceAttributes.PORT_ACTIVE, 1024, 1L << 30, 2, DeviceAttributes.VENDOR_SIW, 0,
            false);

    private static VerbsEndpoint established(Harness h, RecordingHandler handler) throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        ep.connect(Harness.PEER, new ConnectParameters(ByteBuffer.allocate(0), 8, 8));
        h.backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, ep.cmId());
        h.backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, ep.cmId());
        h.pump();
        assertEquals(8, ep.inboundReadDepth(), "asked");
        h.backend.event(VerbsConstants.CM_EVENT_ESTABLISHED, null, ep.cmId());
        h.pump();
        return ep;
    }

    @Test
    void theDepthsTheDeviceSetReplaceThoseAskedForHigherOrLower() throws Exception {
        FakeBackend backend = new FakeBackend();
        backend.readDepths = new VerbsBackend.QueuePairReadDepths(4, 16); // max_rd_atomic (ORD), max_dest_rd_atomic (IRD)
        Harness h = new Harness(VerbsSettings.defaults(), backend, TransportType.ROCE, RNIC);
        VerbsEndpoint ep = established(h, new RecordingHandler());
        assertEquals(16, ep.inboundReadDepth());
        assertEquals(4, ep.outboundReadDepth());
    }

    @Test
    void onSiwMaxRdAtomicIsTheInboundReadQueue() throws Exception {
        FakeBackend backend = new FakeBackend();
        backend.readDepths = new VerbsBackend.QueuePairReadDepths(16, 8); // siw_query_qp: irq_size, orq_size
        Harness h = new Harness(VerbsSettings.defaults(), backend, TransportType.IWARP, SIW);
        VerbsEndpoint ep = established(h, new RecordingHandler());
        assertEquals(16, ep.inboundReadDepth(), "IRD 16 as siw set it and put it on the wire");
        assertEquals(8, ep.outboundReadDepth());
    }

    @Test
    void withoutTheQueryTheNegotiatedDepthsStay() throws Exception {
        Harness h = new Harness(VerbsSettings.defaults(), new FakeBackend(), TransportType.ROCE, RNIC);
        VerbsEndpoint ep = established(h, new RecordingHandler());
        assertEquals(8, ep.inboundReadDepth());
        assertEquals(8, ep.outboundReadDepth());
    }
}
