package smbdirect.rdma.iwarp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import smbdirect.rdma.iwarp.IwarpSettings;

/**
 * {@code maxFpduSize = 0}: each connection's FPDUs are sized to its path's MSS as Linux siw sizes
 * them ({@code siw_update_tcpseg}), RFC 5044 §4 (MULPDU follows the EMSS).
 */
class PathFpduTest {

    @ParameterizedTest(name = "MTU {0}, IPv6 {1}: FPDUs of {2} bytes")
    @CsvSource({
            "1500, false, 1448", // Ethernet: siw's mss_cache with timestamps
            "1500, true, 1424", // IPv6: 1428 rounded down to 8
            "9000, false, 8944", // jumbo frames
            "65536, false, 65480", // Linux loopback, as siw on lo
            "65536, true, 65464",
            "1280, true, 1208", // the IPv6 minimum MTU
            "100, false, 64", // never below the smallest FPDU the settings allow
            "1000000, false, 65536", // never above the largest
            "-1, false, 1448", // MTU unknown: the common Ethernet path
    })
    void theFpduSizeOfAPathIsItsMssRoundedDownToEight(int mtu, boolean ipv6, int fpdu) {
        assertEquals(fpdu, PathFpdu.forMtu(mtu, ipv6));
    }

    @Test
    void aLoopbackConnectionTakesTheMtuOfTheLoopbackInterface() throws Exception {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        int mtu = NetworkInterface.getByInetAddress(lo).getMTU();
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(lo, 0));
                SocketChannel client = SocketChannel.open(server.getLocalAddress());
                SocketChannel accepted = server.accept()) {
            assertEquals(PathFpdu.forMtu(mtu, false), PathFpdu.of(client));
            assertEquals(PathFpdu.forMtu(mtu, false), PathFpdu.of(accepted));
            assertEquals(PathFpdu.of(client), PathFpdu.resolve(IwarpSettings.FPDU_SIZE_OF_PATH, client));
            assertEquals(4096, PathFpdu.resolve(4096, client), "a configured size is used as it is");
        }
    }

    @Test
    void anUnconnectedChannelFallsBackToTheEthernetSize() throws Exception {
        try (SocketChannel unbound = SocketChannel.open()) {
            assertEquals(PathFpdu.UNKNOWN_PATH, PathFpdu.of(unbound));
        }
    }
}
