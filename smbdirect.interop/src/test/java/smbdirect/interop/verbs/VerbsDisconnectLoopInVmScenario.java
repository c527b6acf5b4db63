package smbdirect.interop.verbs;

import java.time.Duration;

import smbdirect.interop.verbs.VerbsInVm.Device;
import smbdirect.interop.vm.GuestJUnit;

/**
 * A scenario outside the normal build, run by name ({@code -Dtest=VerbsDisconnectLoopInVmScenario
 * -Dsurefire.failIfNoSpecifiedTests=false}): the contract test {@code nothingArrivesAfterOnDisconnected}
 * 100 times in a row in one guest JVM on siw0, then on rxe0 (one VM boot), to catch a rare failure of
 * its second connection to the same listener. Each run is reported here by number, per device.
 */
class VerbsDisconnectLoopInVmScenario extends PerDeviceVmTest {

    @Override
    String name() {
        return "verbs-disconnect-loop";
    }

    @Override
    GuestJUnit.Launch configure(GuestJUnit.Launch launch, Device device) {
        // the loop method alone: the contract tests the guest class inherits are not discovered
        return launch.selectMethod("smbdirect.rdma.verbs.internal.VerbsDeviceDisconnectLoop",
                        "nothingArrivesAfterOnDisconnectedAgainAndAgain")
                .property("smbdirect.verbs.address", smbdirect.rdma.verbs.internal.GuestVerbs.GUEST_ADDRESS)
                .property("smbdirect.verbs.timeoutSeconds", "60").timeout(Duration.ofMinutes(12));
    }
}
