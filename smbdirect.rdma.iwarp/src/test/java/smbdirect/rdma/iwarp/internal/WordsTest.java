package smbdirect.rdma.iwarp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.RtrMode;

/** The provider's settings and counters in words, as operators see them (smbd:providers, the status page). */
class WordsTest {

    @Test
    void theDefaultsInWordsWithUnits() {
        assertEquals("may listen on 127.0.0.1:5445; MPA revision 2, CRC32C asked for; FPDUs sized to each connection's TCP MSS; "
                + "2 I/O threads; TCP_NODELAY on; socket buffers: system default; at most 1,024 TCP connections, 128 of them awaiting their MPA Request; "
                + "MPA Request within 5 s, Reply within 10 s; RDMA Read depth up to 16; no peer-to-peer RTR",
                Words.settings(IwarpSettings.defaults()));
    }

    @Test
    void everySettingThatDiffersIsSaid() {
        IwarpSettings s = IwarpSettings.builder().listenAddresses("*:5445", "10.0.0.5", "[::1]:5445").crc(false)
                .maxFpduSize(65536).ioThreads(1).tcpNoDelay(false).sendBufferSize(4096).maxConnections(10).maxPendingConnections(4)
                .mpaRequestTimeoutMillis(1500).mpaRevision(2).peerToPeer(RtrMode.READ).firstFpduDelayMillis(500)
                .build();
        assertEquals("may listen on any address port 5445, 10.0.0.5 (any port), [::1]:5445; MPA revision 2, "
                + "no CRC32C asked for; FPDUs up to 64 KiB; 1 I/O thread; TCP_NODELAY off; socket buffers: send 4 KiB, "
                + "receive system default; at most 10 TCP connections, 4 of them awaiting their MPA Request; MPA Request within 1,500 ms, Reply within 10 s; "
                + "RDMA Read depth up to 16; peer-to-peer RTR zero-length RDMA Read; first FPDU 500 ms after the "
                + "MPA Reply", Words.settings(s));
        assertTrue(Words.settings(IwarpSettings.builder().listenAddresses().build())
                .startsWith("listens nowhere (no listenAddresses: connects only); "));
    }

    @Test
    void theStatisticsCountConnectionsRefusedAtTheCap() throws Exception {
        IwarpSettings settings = IwarpSettings.builder().listenAddresses("127.0.0.1").maxConnections(1)
                .mpaRequestTimeoutMillis(60_000).build();
        try (IwarpProvider provider = IwarpProvider.open("words", settings)) {
            RdmaListener listener = provider.listen(new InetSocketAddress("127.0.0.1", 0), new RdmaListenHandler() {
                @Override
                public void onConnectRequest(RdmaConnectRequest request) {
                    request.reject(null);
                }

                @Override
                public void onListenerFailed(DisconnectCause cause, String detail) {
                    // the listener lives until the provider closes
                }
            });
            try (Socket first = new Socket("127.0.0.1", listener.localAddress().getPort());
                    Socket second = new Socket("127.0.0.1", listener.localAddress().getPort())) {
                second.setSoTimeout(10_000);
                awaitEndOfStream(second.getInputStream());
                String expected = "TCP connections 1 of at most 1 (1 awaiting the MPA Request), 1 refused at the cap; "
                        + "0 endpoints; 1 listener; Terminates sent 0, received 0";
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!expected.equals(provider.describeStatistics()) && System.nanoTime() < deadline) {
                    Thread.sleep(5); // the first connection's MPA setup is registered on its I/O thread
                }
                assertEquals(expected, provider.describeStatistics());
            }
            assertEquals(Words.settings(settings), provider.describeSettings());
        }
    }

    /** The provider closes a connection beyond the cap at once: the peer reads end of stream. */
    private static void awaitEndOfStream(InputStream in) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (in.read() >= 0) {
            assertTrue(System.nanoTime() < deadline, "the connection beyond the cap was not closed");
        }
    }
}
