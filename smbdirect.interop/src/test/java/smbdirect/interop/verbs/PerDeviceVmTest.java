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

/**
 * A host test class whose guest JVM runs the same test classes once per device: one VM boot, the
 * guest launch {@link #configure} describes on siw0, then on rxe0, each guest test reported here by
 * name.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(1800)
abstract class PerDeviceVmTest {

    private VerbsInVm.Booted booted;

    /** Names the console log and the guest launches (letters, digits, '-'). */
    abstract String name();

    /** {@code launch} (on {@code device}, over rdma-core) with its test classes and properties. */
    abstract GuestJUnit.Launch configure(GuestJUnit.Launch launch, Device device);

    /** Guest shell lines around the launch's command on {@code device}; by default just the command. */
    String phase(Device device, GuestJUnit.Launch launch) {
        return launch.command();
    }

    /** The kernel series of the image to boot ({@link smbdirect.interop.vm.SiwVm#require(String)}); by default the default image. */
    String kernel() {
        return "";
    }

    private String launchName(Device device) {
        return name() + "-" + device.kind;
    }

    @BeforeAll
    void boot() throws Exception {
        booted = VerbsInVm.boot(name(), kernel(), Duration.ofMinutes(25), List.of(Device.SIW, Device.RXE), d -> {
            GuestJUnit.Launch launch = VerbsInVm.verbs(GuestJUnit.require().launch(launchName(d)), d);
            return phase(d, configure(launch, d));
        });
    }

    /** The finished VM run (after {@link #boot}). */
    VerbsInVm.Booted booted() {
        return booted;
    }

    @TestFactory
    Stream<DynamicNode> overSiw0() {
        return booted.tests(launchName(Device.SIW), Device.SIW);
    }

    @TestFactory
    Stream<DynamicNode> overRxe0() {
        return booted.tests(launchName(Device.RXE), Device.RXE);
    }
}
