package smbdirect.rdma.verbs.internal.rdmacore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.abort;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.rdma.verbs.internal.BackendAccess;
import smbdirect.rdma.verbs.internal.NativeCallException;
import smbdirect.rdma.verbs.internal.RdmaCoreAccessLoader;
import smbdirect.rdma.verbs.internal.SysfsDevices;
import smbdirect.rdma.verbs.internal.VerbsBackend;
import smbdirect.rdma.verbs.internal.VerbsProbe;
import smbdirect.rdma.verbs.internal.VerbsSettings;

/**
 * The rdma-core backend in this JVM (JDK 22+) against the machine's real libibverbs and librdmacm:
 * the libraries load, and a machine without RDMA kernel support gets exceptions naming the call and
 * errno, and a probe that says so, instead of a crash.
 */
class RdmaCoreOnThisMachineTest {

    private static boolean rdmaDevicesPresent() {
        try (var s = Files.list(Path.of("/sys/class/infiniband"))) {
            return s.findAny().isPresent();
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static void requireNoRdma() {
        if (rdmaDevicesPresent() || Files.exists(Path.of("/dev/infiniband/rdma_cm"))) {
            abort("this machine has RDMA devices: the no-RDMA paths are checked where there are none");
        }
    }

    @Test
    void onJdk22TheLoaderFindsTheBackendAndItsLibrariesLoad() {
        BackendAccess access = RdmaCoreAccessLoader.load();
        assertInstanceOf(RdmaCoreAccess.class, access);
        assertEquals("rdma-core", access.name());
        assertNull(access.load(), "libibverbs.so.1 and librdmacm.so.1 load (rdma-core is installed)");
        assertTrue(access.ipv6());
    }

    @Test
    void withoutKernelSupportTheDeviceListFailsNamingTheCallAndErrno() {
        requireNoRdma();
        NativeCallException e = assertThrows(NativeCallException.class, () -> new RdmaCoreAccess().devices());
        assertEquals("ibv_get_device_list", e.call());
        assertEquals(38, e.errno(), e.getMessage());
        assertTrue(e.getMessage().startsWith("ibv_get_device_list failed: errno 38 ENOSYS (Function not implemented)"),
                e.getMessage());
    }

    @Test
    void withoutKernelSupportTheEventChannelFailsNamingTheCallAndErrno() {
        requireNoRdma();
        NativeCallException e = assertThrows(NativeCallException.class, () -> new RdmaCoreAccess().openBackend());
        assertEquals("rdma_create_event_channel", e.call());
        assertTrue(e.errno() != 0, e.getMessage());
    }

    @Test
    void theProbeChoosesRdmaCoreAndSaysWhyItCannotRunHere() {
        requireNoRdma();
        VerbsProbe probe = new VerbsProbe(List.of(RdmaCoreAccessLoader.load()), new SysfsDevices(Path.of(
                "/sys/class/infiniband")));
        VerbsProbe.Result r = probe.probe(VerbsSettings.defaults());
        assertFalse(r.available());
        assertTrue(r.status().startsWith("unavailable: rdma-core: ibv_get_device_list failed: errno 38 ENOSYS"),
                r.status());
        assertTrue(r.status().contains("load ib_uverbs"), r.status());
    }

    @Test
    void errnosAreNamedWithTheirText() throws Exception {
        Natives.load();
        assertEquals("ECONNREFUSED (Connection refused)", Natives.describeErrno(111));
        assertEquals("rdma_connect failed: errno 111 ECONNREFUSED (Connection refused) (to 10.0.2.15:5445)",
                Natives.failure("rdma_connect", 111, "to 10.0.2.15:5445").getMessage());
    }

    @Test
    void socketAddressesRoundTripThroughSockaddrInAndIn6() throws Exception {
        try (Arena a = Arena.ofConfined()) {
            for (InetSocketAddress address : List.of(new InetSocketAddress("10.0.2.15", 5445),
                    new InetSocketAddress("2001:db8::7", 445),
                    new InetSocketAddress(InetAddress.getByName("fe80::1%1"), 65535))) {
                MemorySegment storage = a.allocate(Abi.SOCKADDR_STORAGE);
                MemorySegment sa = CmStructs.sockaddr(a, address);
                storage.copyFrom(sa);
                assertEquals(address, CmStructs.inet(storage), address.toString());
            }
            MemorySegment v4 = CmStructs.sockaddr(a, new InetSocketAddress("192.0.2.1", 0x1234));
            assertEquals(0x12, Byte.toUnsignedInt(v4.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 2)),
                    "sin_port in network byte order");
            assertEquals(192, Byte.toUnsignedInt(v4.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 4)));
            assertNull(CmStructs.inet(a.allocate(Abi.SOCKADDR_STORAGE)), "AF_UNSPEC");
        }
    }

    @Test
    void connectionParametersCarryPrivateDataAndIrdOrd() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = CmStructs.connParam(a, new VerbsBackend.CmConnParam(
                    ByteBuffer.wrap(new byte[] {0, 16, 0, 8, 0, 0, 0, 0}), 16, 8, 6, 0));
            MemorySegment data = p.get(java.lang.foreign.ValueLayout.ADDRESS, Abi.CONN_PARAM_PRIVATE_DATA).reinterpret(8);
            assertEquals(8, data.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 3));
            assertEquals(8, p.get(java.lang.foreign.ValueLayout.JAVA_BYTE, Abi.CONN_PARAM_PRIVATE_DATA_LEN));
            assertEquals(16, p.get(java.lang.foreign.ValueLayout.JAVA_BYTE, Abi.CONN_PARAM_RESPONDER_RESOURCES));
            assertEquals(8, p.get(java.lang.foreign.ValueLayout.JAVA_BYTE, Abi.CONN_PARAM_INITIATOR_DEPTH));
            assertEquals(6, p.get(java.lang.foreign.ValueLayout.JAVA_BYTE, Abi.CONN_PARAM_RETRY_COUNT));
            assertEquals(0, p.get(java.lang.foreign.ValueLayout.JAVA_BYTE, Abi.CONN_PARAM_RNR_RETRY_COUNT));
            MemorySegment none = CmStructs.connParam(a, new VerbsBackend.CmConnParam(
                    ByteBuffer.allocate(0), 300, 1, 7, 7));
            assertEquals(MemorySegment.NULL, none.get(java.lang.foreign.ValueLayout.ADDRESS, Abi.CONN_PARAM_PRIVATE_DATA));
            assertEquals((byte) 255, none.get(java.lang.foreign.ValueLayout.JAVA_BYTE, Abi.CONN_PARAM_RESPONDER_RESOURCES),
                    "at most 255 (a uint8_t)");
        }
    }
}
