package smbdirect.interop.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import smbdirect.interop.rping.Rping;
import smbdirect.rdma.tck.LoopbackCapture;

/**
 * The path a host-side iWARP peer takes to Linux siw, end to end, with a peer known to work: the
 * repository's Python peer ({@code tools/siw-vm/mpa.py}) plays one iteration of rping's client
 * against {@code rping -s} in the guest through a {@code --fwd} port, tshark captures the port on
 * the host's loopback and Wireshark decodes every MPA frame and FPDU in rping's order. A provider
 * on the host replaces the Python peer on the same path.
 */
@Timeout(600)
class SiwHostPeerTest {

    private static final Duration STEP = Duration.ofSeconds(120);
    private static final Map<String, String> OPCODES = Map.of("0x00", "Write", "0x01", "Read Request",
            "0x02", "Read Response", "0x03", "Send");

    private static final String GUEST = String.join("\n",
            "timeout 60 rping -s -a 10.0.2.15 -p 7174 -C 1 -v > /tmp/srv.log 2>&1 &",
            "SRV=$!",
            "i=0; until netstat -ltn | grep -q ':7174 '; do i=$((i+1)); [ $i -gt 300 ] && break; sleep 0.1; done",
            "echo 'RPING LISTENING'",
            "wait $SRV; echo \"rping server rc=$?\"",
            "cat /tmp/srv.log");

    /** The frames as "->" (host to guest) or "<-" plus what Wireshark decoded, in capture order. */
    static List<String> exchange(List<String> rows, int hostPort) {
        List<String> out = new ArrayList<>();
        for (String row : rows) {
            String[] f = row.split("\t", -1);
            String dir = f[0].equals(Integer.toString(hostPort)) ? "->" : "<-";
            if (!f[1].isEmpty()) {
                out.add(dir + " MPA Request");
            }
            if (!f[2].isEmpty()) {
                out.add(dir + " MPA Reply");
            }
            if (!f[3].isEmpty()) {
                for (String op : f[3].split(",")) {
                    out.add(dir + " " + OPCODES.getOrDefault(op, "opcode " + op));
                }
            }
        }
        return out;
    }

    @Test
    void thePythonPeerCompletesAnRpingIterationWithRealSiwThroughAForwardAndTsharkDecodesIt() throws Exception {
        SiwVm vm = SiwVm.require();
        Path logs = Paths.get(System.getProperty(SiwVm.LOGS_PROPERTY, "target/siw-vm")).toAbsolutePath();
        Path mpa = Paths.get(System.getProperty(SiwVm.TOOL_PROPERTY, "../tools/siw-vm"), "mpa.py").toAbsolutePath();
        SiwVmResult r;
        int hostPort;
        LoopbackCapture capture;
        Path peerOut = logs.resolve("host-peer-mpa.txt");
        try (SiwVmRun run = vm.start(SiwVmSpec.command(GUEST).forward(Rping.DEFAULT_PORT)
                .timeout(Duration.ofSeconds(300)).name("host-peer"))) {
            hostPort = run.hostPort(Rping.DEFAULT_PORT);
            capture = LoopbackCapture.start(hostPort, logs.resolve("host-peer.pcap"));
            try {
                run.awaitLine("RPING LISTENING", STEP);
                // --delay 0.5: the first FPDU must not reach siw before it reads its socket (PROOF.md)
                Process peer = new ProcessBuilder("python3", mpa.toString(), "connect", Integer.toString(hostPort),
                        "--rping", "--delay", "0.5").redirectErrorStream(true).redirectOutput(peerOut.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
                if (!peer.waitFor(STEP.toSeconds(), TimeUnit.SECONDS)) {
                    peer.destroyForcibly();
                }
                assertEquals(0, peer.waitFor(10, TimeUnit.SECONDS) ? peer.exitValue() : -1,
                        "mpa.py: " + Files.readString(peerOut, StandardCharsets.UTF_8));
                r = run.awaitExit();
            } finally {
                capture.close();
            }
        }
        String peerText = Files.readString(peerOut, StandardCharsets.UTF_8);
        String ping = HexFormat.of().formatHex(Rping.data(0, Rping.DEFAULT_SIZE));
        assertTrue(peerText.contains("RDMAP ctrl 0x40: RV=1 rsvd=0 opcode=0 (RDMA Write)")
                && peerText.contains("payload 64 bytes: " + ping), "siw's RDMA Write of the echo:\n" + peerText);
        String all = String.join("\n", r.output()) + "\n" + r.tail(0);
        assertEquals(List.of(), r.kernelFaults(), all);
        assertEquals(0, r.exitCode(), all);
        assertTrue(r.output().contains("rping server rc=0"), all);
        assertTrue(r.output().contains("server ping data: "
                + new String(Rping.data(0, Rping.DEFAULT_SIZE), 0, Rping.DEFAULT_SIZE - 1, StandardCharsets.ISO_8859_1)),
                all);
        List<String> frames = exchange(capture.fields("tcp.dstport", "iwarp_mpa.key.req", "iwarp_mpa.key.rep",
                "iwarp_rdma.opcode"), hostPort);
        String decoded = capture.decode(); // also written next to the capture for people
        assertEquals(List.of("-> MPA Request", "<- MPA Reply", "-> Send", "<- Read Request", "-> Read Response",
                "<- Send", "-> Send", "<- Write", "<- Send"), frames, decoded);
    }
}
