package smbdirect.rdma.iwarp.internal.tck;

import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.tck.IwarpTckFixture;
import smbdirect.rdma.tck.RdmaProviderContractTest;
import smbdirect.rdma.tck.RdmaTckFixture;

/** The RDMA provider SPI contract over two iWARP providers on loopback TCP with the default settings (CRC on, FPDUs of the path's MSS). */
class IwarpContractTest extends RdmaProviderContractTest {

    @Override
    protected RdmaTckFixture createFixture() throws Exception {
        return IwarpTckFixture.forContractSuite(IwarpSettings.defaults());
    }
}
