package smbdirect.rdma.mock.tck;

import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.tck.RdmaProviderContractTest;
import smbdirect.rdma.tck.RdmaTckFixture;

/** The RDMA provider SPI contract on the mock fabric in {@link DeliveryMode#INLINE} mode. */
class MockInlineContractTest extends RdmaProviderContractTest {

    @Override
    protected RdmaTckFixture createFixture() {
        return new MockTckFixture(DeliveryMode.INLINE);
    }
}
