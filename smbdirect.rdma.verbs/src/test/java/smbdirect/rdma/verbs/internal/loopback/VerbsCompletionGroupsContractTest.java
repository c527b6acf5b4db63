package smbdirect.rdma.verbs.internal.loopback;

import smbdirect.rdma.tck.RdmaProviderContractTest;
import smbdirect.rdma.tck.RdmaTckFixture;

/**
 * The whole SPI contract with three completion groups per device on both sides, whatever this
 * machine's processors: the contract's connections are spread over three completion queues, each
 * with its own thread, on the device's one protection domain (rdma-core personality, type 2
 * memory windows and asynchronous events, as {@link VerbsMemoryWindowContractTest}). Nothing is
 * disabled.
 */
class VerbsCompletionGroupsContractTest extends RdmaProviderContractTest {

    @Override
    protected RdmaTckFixture createFixture() {
        return new VerbsTckFixture(false, false, LoopbackBackend.AS_RDMA_CORE, VerbsTckFixture.withMemoryWindows(), 3);
    }
}
