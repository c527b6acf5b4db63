package smbdirect.rdma.verbs.internal.loopback;

import smbdirect.rdma.tck.RdmaProviderContractTest;
import smbdirect.rdma.tck.RdmaTckFixture;

/**
 * The whole SPI contract over loopback devices that have type 2 memory windows and deliver
 * asynchronous events, as rxe and ConnectX do under rdma-core: memory the peer may access,
 * registered on a connected endpoint, is exposed through a window bound on the connection, Send with
 * Invalidate is on by itself (the setting is off) and invalidates the window; the responder of a
 * refused RDMA request learns it from IBV_EVENT_QP_ACCESS_ERR. Nothing is disabled.
 */
class VerbsMemoryWindowContractTest extends RdmaProviderContractTest {

    @Override
    protected RdmaTckFixture createFixture() {
        return new VerbsTckFixture(false, false, LoopbackBackend.AS_RDMA_CORE, VerbsTckFixture.withMemoryWindows());
    }
}
