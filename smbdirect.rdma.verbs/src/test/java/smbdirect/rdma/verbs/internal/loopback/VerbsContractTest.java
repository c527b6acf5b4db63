package smbdirect.rdma.verbs.internal.loopback;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import smbdirect.rdma.tck.RdmaProviderContractTest;

/**
 * The RDMA provider SPI contract run against the verbs provider's logic over the loopback device.
 * The tests below need what DiSNI 2.0 cannot do (README "What DiSNI 2.0 cannot do").
 */
abstract class VerbsContractTest extends RdmaProviderContractTest {

    @Test
    @Disabled("DiSNI 2.0's _getCmEvent returns no private data: RdmaConnectRequest.privateData() is empty "
            + "(VerbsDeviceLevelTest checks the bytes reach rdma_connect)")
    @Override
    protected void connectPrivateDataReachesThePassiveSide() {
    }

    @Test
    @Disabled("DiSNI 2.0's rdma_accept carries no private data")
    @Override
    protected void acceptPrivateDataReachesTheActiveSide() {
    }

    @Test
    @Disabled("DiSNI 2.0 has no rdma_reject: a reject destroys the request's identifier without private data")
    @Override
    protected void rejectPrivateDataReachesTheActiveSide() {
    }
}
