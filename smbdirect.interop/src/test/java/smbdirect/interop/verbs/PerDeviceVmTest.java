package smbdirect.interop.verbs;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
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
 * name; or, where {@link #bootPerDevice} says so, one VM boot per device.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(1800)
abstract class PerDeviceVmTest {

    private final Map<Device, VerbsInVm.Booted> booted = new EnumMap<>(Device.class);

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

    /**
     * Whether each device gets a VM boot of its own (its own console log, named after the device,
     * and its own retry after a guest kernel fault) instead of one boot whose rxe0 phase follows siw0's
     * after {@code rdma-dev} deleted siw0. By default one boot for both.
     */
    boolean bootPerDevice() {
        return false;
    }

    private String launchName(Device device) {
        return name() + "-" + device.kind;
    }

    @BeforeAll
    void boot() throws Exception {
        List<List<Device>> boots = bootPerDevice() ? List.of(List.of(Device.SIW), List.of(Device.RXE))
                : List.of(List.of(Device.SIW, Device.RXE));
        for (List<Device> devices : boots) {
            String vmName = boots.size() == 1 ? name() : launchName(devices.get(0));
            VerbsInVm.Booted b = VerbsInVm.boot(vmName, kernel(), Duration.ofMinutes(25), devices, d -> {
                GuestJUnit.Launch launch = VerbsInVm.verbs(GuestJUnit.require().launch(launchName(d)), d);
                return phase(d, configure(launch, d));
            });
            devices.forEach(d -> booted.put(d, b));
        }
    }

    /** The finished VM run that had {@code device}'s phase (after {@link #boot}). */
    VerbsInVm.Booted booted(Device device) {
        return booted.get(device);
    }

    @TestFactory
    Stream<DynamicNode> overSiw0() {
        return booted(Device.SIW).tests(launchName(Device.SIW), Device.SIW);
    }

    @TestFactory
    Stream<DynamicNode> overRxe0() {
        return booted(Device.RXE).tests(launchName(Device.RXE), Device.RXE);
    }
}
