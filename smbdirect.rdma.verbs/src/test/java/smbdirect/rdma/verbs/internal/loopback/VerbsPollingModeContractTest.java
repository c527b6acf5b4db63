package smbdirect.rdma.verbs.internal.loopback;

import smbdirect.rdma.tck.RdmaTckFixture;

/** The SPI contract over the loopback device with busy polling, Send with Invalidate off (the default). */
class VerbsPollingModeContractTest extends VerbsContractTest {

    @Override
    protected RdmaTckFixture createFixture() {
        return new VerbsTckFixture(true, false);
    }
}
