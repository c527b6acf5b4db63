package smbdirect.rdma.iwarp.internal;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.channels.SocketChannel;

import smbdirect.rdma.iwarp.IwarpSettings;

/**
 * The FPDU size of a connection whose {@link IwarpSettings#maxFpduSize()} is
 * {@link IwarpSettings#FPDU_SIZE_OF_PATH}: what Linux siw sends. siw sizes every FPDU to the TCP
 * socket's MSS ({@code siw_update_tcpseg}: {@code mss_cache}, one GSO segment, rounded down to a
 * multiple of 8 "because loopback may give odd numbers"), as RFC 5044 §4 asks (MULPDU follows the
 * EMSS). Java cannot read the socket's MSS, so it is derived from the MTU of the local interface
 * that carries the connection: less the IPv4 (20) or IPv6 (40) header, the TCP header (20) and the
 * timestamp option Linux negotiates by default (12). For 1500-byte Ethernet that is 1448, siw's
 * figure; for Linux loopback (MTU 65536), 65480, also siw's.
 */
final class PathFpdu {

    /** When the interface or its MTU cannot be read: 1500-byte Ethernet, the common path. */
    static final int UNKNOWN_PATH = 1448;

    private static final int TCP_HEADER_WITH_TIMESTAMPS = 20 + 12;

    private PathFpdu() {
    }

    /** The FPDU size for an interface MTU (-1: unknown). */
    static int forMtu(int mtu, boolean ipv6) {
        if (mtu <= 0) {
            return UNKNOWN_PATH;
        }
        int mss = mtu - (ipv6 ? 40 : 20) - TCP_HEADER_WITH_TIMESTAMPS;
        return Math.max(64, Math.min(65536, mss & ~7));
    }

    /** The FPDU size of {@code channel}'s path, from the local interface that carries it. */
    static int of(SocketChannel channel) {
        try {
            if (channel.getLocalAddress() instanceof InetSocketAddress local) {
                return forMtu(mtu(local.getAddress()), local.getAddress() instanceof Inet6Address);
            }
        } catch (IOException e) {
            // a closed channel or an interface gone: the common path
        }
        return UNKNOWN_PATH;
    }

    private static int mtu(InetAddress local) throws SocketException {
        NetworkInterface nif = NetworkInterface.getByInetAddress(local);
        return nif == null ? -1 : nif.getMTU();
    }

    /** The size the transmitter of a connection uses: the configured one, or the path's. */
    static int resolve(int configured, SocketChannel channel) {
        return configured == IwarpSettings.FPDU_SIZE_OF_PATH ? of(channel) : configured;
    }
}
