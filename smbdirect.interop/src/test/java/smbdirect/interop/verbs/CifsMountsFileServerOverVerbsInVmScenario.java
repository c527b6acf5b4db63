package smbdirect.interop.verbs;

import java.util.List;

import smbdirect.interop.verbs.VerbsInVm.Device;

/**
 * {@link CifsMountsFileServerOverVerbsInVmTest} over rxe0 (RoCE v2, port 445): Linux cifs mounts
 * the reference file server, which runs in a guest JVM over the verbs provider, on the guest's
 * soft-RoCE device.
 *
 * <p><b>Outside the normal build</b> (its name is no test's). On 6.12.117+deb12-amd64 it passed in
 * 3 of 3 boots on the final provider, and in an earlier boot the server ended one of cifs's
 * connections for an empty message in the middle of a fragmented one (R-3.1.5.8-18, as [MS-SMBD]
 * and Windows do; cifs reconnected, so a mount took two connections): that is cifs's, and the
 * server stays strict. On 6.1 rxe0 also logged a {@code __ib_drain_rq} WARNING from cifs's
 * {@code smbd_destroy}, after which cifs left its connection's RDMA objects. Run it by name:
 * {@code mvn -B verify -pl smbdirect.interop -am -Dtest=CifsMountsFileServerOverVerbsInVmScenario
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class CifsMountsFileServerOverVerbsInVmScenario extends CifsMountsFileServerOverVerbsInVmTest {

    @Override
    List<Device> devices() {
        return List.of(Device.RXE);
    }

    @Override
    String name() {
        return "fs-verbs-roce";
    }
}
