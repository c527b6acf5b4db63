package smbdirect.interop.verbs;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import smbdirect.interop.verbs.VerbsInVm.Device;
import smbdirect.interop.vm.GuestJUnit;
import smbdirect.rdma.verbs.internal.GuestVerbs;

/**
 * The RDMA provider SPI contract suite ({@code RdmaProviderContractTest}), in full, over the verbs
 * provider's rdma-core backend on Linux's kernel RDMA stack in the siw VM ({@code
 * VerbsDeviceContractTest}: two providers on the guest's device, each with its own CM event
 * channel): one VM boot, one guest JVM on siw0 (iWARP), then one on rxe0 (RoCE v2). Each contract
 * test is reported here by name, per device.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(1800)
class VerbsContractInVmTest {

    private VerbsInVm.Booted booted;

    private static String launch(Device d) {
        return "contract-" + d.kind;
    }

    @BeforeAll
    void boot() throws Exception {
        booted = VerbsInVm.boot("verbs-contract", Duration.ofMinutes(25), List.of(Device.SIW, Device.RXE), d -> {
            GuestJUnit.Launch l = VerbsInVm.verbs(GuestJUnit.require().launch(launch(d)), d)
                    .select("smbdirect.rdma.verbs.internal.VerbsDeviceContractTest")
                    .property("smbdirect.verbs.address", GuestVerbs.GUEST_ADDRESS)
                    .property("smbdirect.verbs.timeoutSeconds", "60").timeout(Duration.ofMinutes(10));
            return l.command();
        });
    }

    @TestFactory
    Stream<DynamicNode> overSiw0() {
        return booted.tests(launch(Device.SIW), Device.SIW);
    }

    @TestFactory
    Stream<DynamicNode> overRxe0() {
        return booted.tests(launch(Device.RXE), Device.RXE);
    }
}
