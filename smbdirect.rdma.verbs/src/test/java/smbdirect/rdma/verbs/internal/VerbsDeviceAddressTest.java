package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * On a real device, without {@code bindAddress}: the probe finds the device's network interface and
 * its address by itself, as an operator who configures only the device expects. siw0 and rxe0 have
 * no {@code device/net} in sysfs: rxe names its interface in its GID table, siw's GID 0 carries its
 * interface's MAC. Also what the device reports about memory windows and Send with Invalidate.
 * Properties as {@link DeviceTckFixture}; tagged {@code rdma-device}.
 */
@Tag("rdma-device")
class VerbsDeviceAddressTest {

    private final String device = System.getProperty("smbdirect.verbs.device", "");
    private final String address = System.getProperty("smbdirect.verbs.address", "");

    @Test
    void anEmptyBindAddressIsTheAddressOfTheDevicesInterface() throws Exception {
        assertTrue(!device.isEmpty() && !address.isEmpty(), "needs -Dsmbdirect.verbs.device and -Dsmbdirect.verbs.address");
        List<String> interfaces = new SysfsDevices(Path.of("/sys/class/infiniband")).netDevices(device);
        assertEquals(1, interfaces.size(), "the interface of " + device + ": " + interfaces);
        VerbsProbe.Result r = DeviceTckFixture.probe(DeviceTckFixture.settings(device, ""));
        try {
            assertEquals(InetAddress.getByName(address), r.bindAddress().getAddress(), r.status());
            assertEquals(device, r.device());
        } finally {
            r.backend().close();
        }
    }

    /**
     * Both devices post Send with Invalidate (memory management extensions): a token a peer handed
     * out for remote invalidation is invalidated. rxe (like ConnectX) has type 2 memory windows, so a
     * peer's Send with Invalidate invalidates our memory too and the completion says so; siw has none,
     * and rdma-core's siw provider would not report an invalidation anyway: off, with the reason.
     */
    @Test
    void sendWithInvalidateIsPostedOnBothAndAPeersIsOnWhereTheDeviceHasTypeTwoWindowsAndEachSaysWhy()
            throws Exception {
        VerbsProbe.Result r = DeviceTckFixture.probe(DeviceTckFixture.settings(device, address));
        VerbsRdmaProvider provider = new VerbsRdmaProvider(DeviceTckFixture.settings(device, address), r.backend(),
                r.bindAddress(), r.transportType(), r.deviceAttributes(), r.notes(), System::nanoTime);
        try {
            DeviceAttributes d = r.deviceAttributes();
            boolean rxe = d.vendorId() == DeviceAttributes.VENDOR_RXE;
            assertEquals(rxe, d.memoryWindows(), d.describe());
            assertTrue(provider.capabilities().sendWithInvalidate(), provider.describeSettings());
            assertEquals(rxe, provider.remoteInvalidation(), provider.describeSettings());
            assertTrue(provider.describeSettings().contains("Send with Invalidate on: " + device
                    + " posts IBV_WR_SEND_WITH_INV"), provider.describeSettings());
            assertTrue(provider.describeSettings().contains(rxe ? "a peer's Send with Invalidate of our memory on: "
                    + "memory the peer may access is exposed through type 2 memory windows"
                    : "a peer's Send with Invalidate of our memory off: " + device + " has no type 2 memory windows"),
                    provider.describeSettings());
        } finally {
            provider.shutdown();
        }
    }
}
