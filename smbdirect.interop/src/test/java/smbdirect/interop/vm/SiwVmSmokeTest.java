package smbdirect.interop.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import smbdirect.interop.rping.Rping;

/**
 * The harness end to end: the VM boots, Linux siw is up on eth0, rdma-core's rping client and server
 * complete a run inside the guest (siw against itself: MPA, Sends, RDMA Read and Write), and both
 * kinds of forward carry TCP between the host and the guest. No process of the run is left.
 */
@Timeout(600)
class SiwVmSmokeTest {

    private static final Duration STEP = Duration.ofSeconds(120);

    /** Waits (bounded) until something listens on TCP {@code port} in the guest. */
    private static String awaitGuestListener(int port) {
        return "i=0; until netstat -ltn | grep -q ':" + port + " '; do i=$((i+1)); [ $i -gt 300 ] && break; sleep 0.1; done";
    }

    private static final String GUEST = String.join("\n",
            "rdma link show siw0/1",
            "timeout 60 rping -s -a 10.0.2.15 -p 7174 -C 3 -v -V > /tmp/srv.log 2>&1 &",
            "SRV=$!",
            // the rping server listens through rdma_cm (siw's listener is a kernel TCP socket)
            awaitGuestListener(7174),
            "timeout 60 rping -c -a 10.0.2.15 -p 7174 -C 3 -v -V; echo \"rping client rc=$?\"",
            "wait $SRV; echo \"rping server rc=$?\"",
            "sed 's/^/srv: /' /tmp/srv.log",
            // --guestfwd: 10.0.2.100:5445 in the guest reaches the host's listener
            "echo guest-to-host | timeout 120 nc 10.0.2.100 5445; echo \"guestfwd rc=$?\"",
            // --fwd: the host reaches a server in the guest
            "(echo guest-reply | timeout 120 nc -l -p 7000 > /tmp/fwd.txt) &",
            "FWD=$!",
            awaitGuestListener(7000),
            "echo 'FWD READY'",
            "wait $FWD; echo \"fwd got: $(cat /tmp/fwd.txt)\"");

    @Test
    void siw0IsActiveRpingCompletesInTheGuestAndBothForwardsCarryTcp() throws Exception {
        SiwVm vm = SiwVm.require();
        SiwVmRun run;
        try (ServerSocket host = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            host.setSoTimeout((int) STEP.toMillis());
            run = vm.start(SiwVmSpec.command(GUEST).forward(7000).guestForward(5445, host.getLocalPort())
                    .timeout(Duration.ofSeconds(300)).name("smoke"));
            try {
                try (Socket fromGuest = host.accept()) {
                    BufferedReader in = new BufferedReader(
                            new InputStreamReader(fromGuest.getInputStream(), StandardCharsets.US_ASCII));
                    assertEquals("guest-to-host", in.readLine(), "bytes the guest sent through --guestfwd");
                }
                run.awaitLine("FWD READY", STEP);
                try (Socket toGuest = new Socket()) {
                    toGuest.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), run.hostPort(7000)),
                            (int) STEP.toMillis());
                    toGuest.setSoTimeout((int) STEP.toMillis());
                    OutputStream out = toGuest.getOutputStream();
                    out.write("host-to-guest\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    BufferedReader in = new BufferedReader(
                            new InputStreamReader(toGuest.getInputStream(), StandardCharsets.US_ASCII));
                    assertEquals("guest-reply", in.readLine(), "bytes the guest sent back through --fwd");
                }
                SiwVmResult r = run.awaitExit();
                List<String> out = r.output();
                String all = String.join("\n", out) + "\n" + r.tail(0);
                assertEquals(List.of(), r.kernelFaults(), all);
        assertEquals(0, r.exitCode(), all);
                assertTrue(out.stream().anyMatch(l -> l.matches("link siw0/1 state ACTIVE physical_state LINK_UP netdev eth0\\s*")),
                        "siw0 is ACTIVE on eth0:\n" + all);
                for (int i = 0; i < 3; i++) {
                    String data = new String(Rping.data(i, Rping.DEFAULT_SIZE), 0, Rping.DEFAULT_SIZE - 1,
                            StandardCharsets.ISO_8859_1);
                    assertTrue(out.contains("ping data: " + data), "client ping " + i + ":\n" + all);
                    assertTrue(out.contains("srv: server ping data: " + data), "server ping " + i + ":\n" + all);
                }
                assertTrue(out.contains("rping client rc=0"), all);
                assertTrue(out.contains("rping server rc=0"), all);
                assertTrue(out.contains("guestfwd rc=0"), all);
                assertTrue(out.contains("fwd got: host-to-guest"), all);
            } finally {
                run.close();
            }
        }
        assertEquals(List.of(), run.leftovers(), "processes of the VM run left behind");
    }
}
