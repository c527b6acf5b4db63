package smbdirect.rdma.mock.tck;

import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.tck.RdmaProviderContractTest;
import smbdirect.rdma.tck.RdmaTckFixture;

/** The RDMA provider SPI contract on THREADED mock devices that report no Send with Invalidate. */
class MockWithoutSendWithInvalidateContractTest extends RdmaProviderContractTest {

    @Override
    protected RdmaTckFixture createFixture() {
        RdmaCapabilities d = MockFabric.DEFAULT_CAPABILITIES;
        return new MockTckFixture(DeliveryMode.THREADED, new RdmaCapabilities(d.maxSendWorkRequests(),
                d.maxReceiveWorkRequests(), d.maxSge(), d.maxInlineData(), d.maxMessageSize(), d.maxInboundReadDepth(),
                d.maxOutboundReadDepth(), d.maxRegionSize(), false));
    }
}
