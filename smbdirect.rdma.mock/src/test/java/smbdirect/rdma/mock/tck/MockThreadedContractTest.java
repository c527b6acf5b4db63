package smbdirect.rdma.mock.tck;

import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.tck.RdmaProviderContractTest;
import smbdirect.rdma.tck.RdmaTckFixture;

/** The RDMA provider SPI contract on the mock fabric in {@link DeliveryMode#THREADED} mode. */
class MockThreadedContractTest extends RdmaProviderContractTest {

    @Override
    protected RdmaTckFixture createFixture() {
        return new MockTckFixture(DeliveryMode.THREADED);
    }
}
