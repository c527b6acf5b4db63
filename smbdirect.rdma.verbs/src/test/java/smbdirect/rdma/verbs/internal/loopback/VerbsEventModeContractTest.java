package smbdirect.rdma.verbs.internal.loopback;

import smbdirect.rdma.tck.RdmaTckFixture;

/** The SPI contract over the loopback device in event mode (completion channel), Send with Invalidate on. */
class VerbsEventModeContractTest extends VerbsContractTest {

    @Override
    protected RdmaTckFixture createFixture() {
        return new VerbsTckFixture(false, true);
    }
}
