package smbdirect.rdma.verbs.internal;

import org.junit.jupiter.api.Tag;

import smbdirect.rdma.tck.RdmaProviderContractTest;
import smbdirect.rdma.tck.RdmaTckFixture;

/**
 * The whole SPI contract over two verbs providers on a real RDMA device, through the backend the
 * {@code smbdirect.verbs.backend} property names (default rdma-core): private data on connect,
 * accept and reject, reject, missing listener, RDMA Read and Write, Send with Invalidate where the
 * device has it, flush on disconnect. Needs {@code -Dsmbdirect.verbs.device} and
 * {@code -Dsmbdirect.verbs.address} (see {@link DeviceTckFixture}); tagged {@code rdma-device}, so
 * the default build leaves it out.
 */
@Tag("rdma-device")
class VerbsDeviceContractTest extends RdmaProviderContractTest {

    @Override
    protected RdmaTckFixture createFixture() {
        return new DeviceTckFixture();
    }
}
