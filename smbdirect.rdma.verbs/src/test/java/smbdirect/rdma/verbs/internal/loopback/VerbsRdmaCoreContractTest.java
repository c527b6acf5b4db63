package smbdirect.rdma.verbs.internal.loopback;

import smbdirect.rdma.tck.RdmaProviderContractTest;
import smbdirect.rdma.tck.RdmaTckFixture;

/**
 * The whole SPI contract over the loopback device standing for a backend that has what rdma-core
 * has (private data on connect, accept and reject, the reject reason, IRD/ORD): nothing is
 * disabled. Event mode, Send with Invalidate on.
 */
class VerbsRdmaCoreContractTest extends RdmaProviderContractTest {

    @Override
    protected RdmaTckFixture createFixture() {
        return new VerbsTckFixture(false, true, LoopbackBackend.AS_RDMA_CORE);
    }
}
