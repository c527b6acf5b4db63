package smbdirect.interop.siw;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A guest command that stops until the host says "go on": the guest listens on a port (forwarded to
 * the host) and writes "go" to the connection the host opens; the host reads it back, so it knows
 * the guest's listener, not QEMU's forward alone, took the connection. Static, thread-safe.
 */
final class GuestGo {

    private GuestGo() {
    }

    /** The guest's shell lines: listen on {@code port}, print "GO LISTENING", wait for the host. */
    static String await(int port) {
        return String.join("\n",
                "(echo go | timeout 500 nc -l -p " + port + " > /tmp/go.txt) &",
                "GO=$!",
                "i=0; until netstat -ltn | grep -q ':" + port + " '; do i=$((i+1)); [ $i -gt 300 ] && break; sleep 0.1; done",
                "echo 'GO LISTENING'",
                "wait $GO; echo \"go: $(cat /tmp/go.txt)\"");
    }

    /** Connects to the guest's listener at host port {@code hostPort}: the guest goes on. */
    static void signal(int hostPort, Duration step) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), hostPort), (int) step.toMillis());
            s.setSoTimeout((int) step.toMillis());
            InputStream in = s.getInputStream();
            byte[] go = in.readNBytes(3);
            assertEquals("go\n", new String(go, StandardCharsets.US_ASCII), "the guest's go line");
        }
    }
}
