package smbdirect.interop.verbs;

import java.time.Duration;

import smbdirect.interop.verbs.VerbsInVm.Device;
import smbdirect.interop.vm.GuestJUnit;
import smbdirect.rdma.verbs.internal.GuestVerbs;

/**
 * The RDMA provider SPI contract suite ({@code RdmaProviderContractTest}), in full, over the verbs
 * provider's rdma-core backend on Linux's kernel RDMA stack in the siw VM ({@code
 * VerbsDeviceContractTest}: two providers on the guest's device, each with its own CM event
 * channel): one VM boot, one guest JVM on siw0 (iWARP), then one on rxe0 (RoCE v2). Each contract
 * test is reported here by name, per device. Nothing is pinned or skipped: where Linux siw or rxe
 * cannot keep a promise of the contract, the device fixture declares it as a device fact with the
 * kernel source it comes from ({@code DeviceTckFixture.facts}), and the contract accepts the
 * device's outcome there and nothing else. Before it the probe without {@code bindAddress}
 * ({@code VerbsDeviceAddressTest}), after it the device's asynchronous events ({@code
 * VerbsDeviceEventTest}: a refused Write's queue pair event, the link going down and up), then a
 * peer that stops posting receives beside a connection that goes on ({@code
 * VerbsDeviceReceiverStopsTest}), then one listener taking 100 connections in a row while the
 * endpoints before are still open ({@code VerbsDeviceReconnectTest}), and last that posting and completing allocate nothing on the device
 * ({@code VerbsDeviceSteadyStateTest}).
 */
class VerbsContractInVmTest extends PerDeviceVmTest {

    @Override
    String name() {
        return "verbs-contract";
    }

    @Override
    GuestJUnit.Launch configure(GuestJUnit.Launch launch, Device device) {
        // by class name: the address probe, the contract, then the device events (the link test takes
        // the device's interface down for a moment and up again), then a receiver that stops posting
        // receives beside a connection that goes on, then 100 connections in a row to one listener,
        // then the steady-state allocation count
        return launch.select("smbdirect.rdma.verbs.internal.VerbsDeviceAddressTest")
                .select("smbdirect.rdma.verbs.internal.VerbsDeviceContractTest")
                .select("smbdirect.rdma.verbs.internal.VerbsDeviceEventTest")
                .select("smbdirect.rdma.verbs.internal.VerbsDeviceReceiverStopsTest")
                .select("smbdirect.rdma.verbs.internal.VerbsDeviceReconnectTest")
                .select("smbdirect.rdma.verbs.internal.VerbsDeviceSteadyStateTest")
                .config("junit.jupiter.testclass.order.default", "org.junit.jupiter.api.ClassOrderer$ClassName")
                .property("smbdirect.verbs.address", GuestVerbs.GUEST_ADDRESS)
                .property("smbdirect.verbs.timeoutSeconds", "60").timeout(Duration.ofMinutes(10));
    }
}
