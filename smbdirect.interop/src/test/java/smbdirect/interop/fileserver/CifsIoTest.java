package smbdirect.interop.fileserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The readers of cifs's reports and of the guest script's lines, on lines in the formats Linux 6.1
 * prints them ({@code fs/smb/client/cifs_debug.c}: DebugData's SMB Direct section in hex, Stats;
 * iproute2's {@code rdma resource show}).
 */
class CifsIoTest {

    private static final String H1 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    private static final String H2 = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752";

    private static List<String> debugData(String dialectLine) {
        return List.of(
                "Display Internal CIFS Data Structures for Debugging",
                "Servers:",
                "1) ConnectionId: 0x1 Hostname: 10.0.2.100 ",
                "SMBDirect (in hex) protocol version: 100 transport status: 2",
                "Conn receive_credit_max: ff send_credit_target: ff max_send_size: 554",
                "Conn max_fragmented_recv_size: 2a756 max_fragmented_send_size: 100000 max_receive_size:2000",
                "Conn keep_alive_interval: 78 max_readwrite_size: 100000 rdma_readwrite_threshold: 1000",
                "Debug count_get_receive_buffer: 0 count_put_receive_buffer: 0 count_send_empty: 0",
                "MR responder_resources: 20 max_frmr_depth: 800 mr_type: 0",
                "MR mr_ready_count: 20 mr_used_count: 0",
                dialectLine,
                "RDMA ",
                "TCP status: 1 Instance: 1");
    }

    @Test
    void debugDataOfOneSmbDirectConnectionIsReadInHex() {
        List<CifsIo.SmbdConnection> c = CifsIo.smbdConnections(debugData("Number of credits: 8190 Dialect 0x311"));
        assertEquals(1, c.size(), c.toString());
        CifsIo.SmbdConnection d = c.get(0);
        assertEquals(new CifsIo.SmbdConnection(0x100, CifsIo.SMBD_CONNECTED, 0x100000, 0x1000, 0x800, 0x20, 0, 0x311,
                true, false), d);
    }

    @Test
    void rdmaAfterTheServerCapabilitiesLineOf612MarksAnRdmaConnection() {
        List<String> lines = new java.util.ArrayList<>(debugData("Number of credits: 8190,1,1 Dialect 0x311"));
        lines.add(lines.indexOf("RDMA "), "Server capabilities: 0x300046");
        assertTrue(CifsIo.smbdConnections(lines).get(0).rdma(), lines.toString());
        lines.remove("RDMA ");
        assertFalse(CifsIo.smbdConnections(lines).get(0).rdma(), lines.toString());
    }

    @Test
    void aSignedConnectionIsToldApart() {
        assertTrue(CifsIo.smbdConnections(debugData("Number of credits: 512 Dialect 0x302 signed")).get(0).signed());
    }

    @Test
    void aTcpConnectionIsNoSmbDirectConnection() {
        List<String> tcp = List.of("1) ConnectionId: 0x2 Hostname: 10.0.2.2 ", "Number of credits: 512 Dialect 0x311",
                "TCP status: 1 Instance: 1");
        assertEquals(List.of(), CifsIo.smbdConnections(tcp));
    }

    @Test
    void statsReadsAndWritesAreSummedOverTreeConnections() {
        List<String> stats = List.of("1) \\\\10.0.2.100\\share", "SMBs: 40", "Reads: 12 total 0 failed",
                "Writes: 7 total 1 failed", "2) \\\\10.0.2.100\\share", "Reads: 3 total 2 failed", "Writes: 5 total 0 failed");
        assertEquals(List.of(15L, 2L, 12L, 1L), Arrays.stream(CifsIo.readsAndWrites(stats)).boxed().toList());
    }

    @Test
    void rdmaResourceSummaryIsReadPerDevice() {
        Map<String, Map<String, Long>> r = CifsIo.resources(List.of("0: siw0: pd 2 cq 4 qp 2 cm_id 3 mr 82 ctx 0 srq 0 "));
        assertEquals(Map.of("siw0", Map.of("pd", 2L, "cq", 4L, "qp", 2L, "cm_id", 3L, "mr", 82L, "ctx", 0L, "srq", 0L)), r);
    }

    private static List<String> script(String tag, String readBack, int rmRc) {
        List<String> l = new ArrayList<>(List.of(
                "fsio " + tag + " mkdir " + tag + " rc=0",
                "fsio " + tag + " source f-4096 rc=0 sha256=" + H1 + " size=4096",
                "fsio " + tag + " write f-4096 rc=0",
                "fsio " + tag + " write-direct g-4096 rc=0",
                "fsio " + tag + " cat f-4096 rc=0 sha256=" + H1,
                "fsio " + tag + " read-direct f-4096 rc=0 sha256=" + H1,
                "fsio " + tag + " read-direct g-4096 rc=0 sha256=" + readBack,
                "fsio " + tag + " stat f-4096 rc=0 size=4096",
                "fsio " + tag + " cp c-4096 rc=0",
                "fsio " + tag + " mv m-4096 rc=0",
                "fsio " + tag + " read-direct m-4096 rc=0 sha256=" + H1,
                "fsio " + tag + " rm m-4096 rc=" + rmRc,
                "fsio " + tag + " mkdir sub rc=0",
                "fsio " + tag + " rmdir sub rc=0",
                "fsio " + tag + " done"));
        return l;
    }

    private static void check(List<String> lines, String tag, long... sizes) throws Throwable {
        for (Executable e : CifsIo.roundTrips(CifsIo.steps(lines), tag, sizes)) {
            e.execute();
        }
    }

    @Test
    void roundTripsPassWhenEveryStepSucceededAndEveryReadHashesAsTheSource() throws Throwable {
        check(script("t", H1, 0), "t", 4096);
        assertEquals(Map.of("f-4096", H1, "g-4096", H1), CifsIo.written(CifsIo.steps(script("t", H1, 0)), "t"));
    }

    @Test
    void roundTripsFailWhenAReadBackDiffers() {
        assertThrows(AssertionError.class, () -> check(script("t", H2, 0), "t", 4096));
    }

    @Test
    void roundTripsFailWhenAStepFailed() {
        assertThrows(AssertionError.class, () -> check(script("t", H1, 1), "t", 4096));
    }

    @Test
    void roundTripsFailWhenASizeWasNeverWritten() {
        assertThrows(AssertionError.class, () -> check(script("t", H1, 0), "t", 4096, 1048576));
    }

    @Test
    void mountStatusAndSectionsAreFoundByTag() {
        List<String> l = List.of("mount a rc=0", "umount a rc=32", "=== STATS a ===", "Reads: 1 total 0 failed",
                "=== END STATS a ===");
        assertEquals(0, CifsIo.status(l, "mount", "a"));
        assertEquals(32, CifsIo.status(l, "umount", "a"));
        assertNull(CifsIo.status(l, "mount", "b"));
        assertEquals(List.of("Reads: 1 total 0 failed"), CifsIo.section(l, "STATS", "a"));
        assertNull(CifsIo.section(l, "STATS", "b"));
    }
}
