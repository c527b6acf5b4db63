package smbdirect.rdma.iwarp;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

import smbdirect.api.settings.SettingRefusedException;

/**
 * The validated configuration of a software iWARP provider (OSGi configuration PID
 * {@code smbdirect.rdma.iwarp}; the attribute names are the component names). Immutable; build one
 * with {@link #builder()} or start from {@link #defaults()}. Every value is checked when the record
 * is created: a bad one throws {@link SettingRefusedException} (an {@link IllegalArgumentException})
 * naming the attribute, the value and the rule.
 *
 * @param listenAddresses where {@code listen} may open a port: entries {@code ADDRESS} (any port
 *     on that address), {@code ADDRESS:PORT}, {@code [IPV6]:PORT}, {@code *} (any address) or
 *     {@code *:PORT}; IP literals only. No port is opened except by an explicit {@code listen} on an
 *     address an entry allows. SMB Direct over iWARP uses port 5445 ([MS-SMBD] 2.1, IANA
 *     "smbdirect"). Default {@code 127.0.0.1:5445}.
 * @param crc ask for MPA CRC32C in the Request and Reply (RFC 5044 §7.1); CRC is used on a
 *     connection when either side asks. Default true
 * @param maxFpduSize the largest FPDU sent, in bytes, MPA header, pad and CRC included
 *     (RFC 5044 §4: an FPDU should fit the TCP segment, MULPDU follows the EMSS): a multiple of 4
 *     from 64 to 65536, or {@value #FPDU_SIZE_OF_PATH} (the default) to size the FPDUs of each
 *     connection to its path as Linux siw does: the MTU of the local interface that carries the
 *     connection less the IP header, the TCP header and its timestamp option, rounded down to a
 *     multiple of 8 (1448 on 1500-byte Ethernet, 8944 with 9000-byte jumbo frames, 65480 on
 *     Linux loopback); 1448 when the interface's MTU cannot be read
 * @param ioThreads I/O threads ({@code smbdirect-iwarp-<instance>-io-<n>}), connections spread over them; 1 to 64. Default 2
 * @param mpaRequestTimeoutMillis how long an accepted TCP connection may take to deliver its MPA
 *     Request (Linux siw: 5 s); 1 to 600000. Default 5000
 * @param mpaReplyTimeoutMillis how long a connect may take from the TCP connect to the complete
 *     MPA Reply (Linux siw: 10 s); 1 to 600000. Default 10000
 * @param tcpNoDelay disable Nagle's algorithm (Linux siw does). Default true
 * @param sendBufferSize SO_SNDBUF in bytes, 0 for the system default; else 4096 to 2^30
 * @param receiveBufferSize SO_RCVBUF in bytes, 0 for the system default; else 4096 to 2^30
 * @param maxConnections TCP connections (connecting, handshaking and established) the provider
 *     holds at once; further accepted connections are closed and further connects refused. 1 to 1000000. Default 1024
 * @param maxPendingConnections accepted TCP connections whose MPA Request is not complete yet that
 *     the provider holds at once (each for at most {@code mpaRequestTimeoutMillis}); further accepted
 *     connections are closed at once. A flood of connects or half-open handshakes thus takes at most
 *     this share of {@code maxConnections}, and established connections and connects keep the rest.
 *     1 to 1000000. Default 128
 * @param mpaRevision the MPA revision an initiator asks for: 2 (RFC 6581, with the IRD/ORD word,
 *     as Linux siw) or 1 (RFC 5044 only, for peers that speak nothing else). Default 2
 * @param peerToPeer the RTR frames an initiator offers (RFC 6581 §5). Default {@link RtrMode#NONE}
 * @param maxReadDepth the largest IRD and ORD an endpoint uses (Linux siw: 128); 1 to 128. Default 16
 * @param firstFpduDelayMillis how long an initiator waits after the MPA Reply before its first FPDU;
 *     0 to 10000, default 0. Linux siw 6.1 as responder sends its Reply before it attaches its receive
 *     path, so an FPDU arriving in that gap can sit unread ("siw accept race", measured: 500 ms
 *     always worked); set it when connecting to siw (ksmbd over siw)
 */
public record IwarpSettings(
        List<String> listenAddresses,
        boolean crc,
        int maxFpduSize,
        int ioThreads,
        int mpaRequestTimeoutMillis,
        int mpaReplyTimeoutMillis,
        boolean tcpNoDelay,
        int sendBufferSize,
        int receiveBufferSize,
        int maxConnections,
        int maxPendingConnections,
        int mpaRevision,
        RtrMode peerToPeer,
        int maxReadDepth,
        int firstFpduDelayMillis) {

    /** {@link #maxFpduSize()}: size the FPDUs of each connection to its path's MSS, as Linux siw does. */
    public static final int FPDU_SIZE_OF_PATH = 0;

    /** The port SMB Direct uses over iWARP ([MS-SMBD] 2.1). */
    public static final int SMB_DIRECT_PORT = 5445;

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    public IwarpSettings {
        Objects.requireNonNull(listenAddresses, "listenAddresses");
        listenAddresses = listenAddresses.stream().map(s -> s == null ? "" : s.trim()).filter(s -> !s.isEmpty())
                .toList();
        for (String entry : listenAddresses) {
            parse(entry);
        }
        peerToPeer = peerToPeer == null ? RtrMode.NONE : peerToPeer;
        require(maxFpduSize == FPDU_SIZE_OF_PATH || maxFpduSize >= 64 && maxFpduSize <= 65536 && maxFpduSize % 4 == 0,
                "maxFpduSize", maxFpduSize, "a multiple of 4 from 64 to 65536, or 0 to follow the path's MSS");
        require(ioThreads >= 1 && ioThreads <= 64, "ioThreads", ioThreads, "1..64");
        require(mpaRequestTimeoutMillis >= 1 && mpaRequestTimeoutMillis <= 600_000, "mpaRequestTimeoutMillis",
                mpaRequestTimeoutMillis, "1..600000");
        require(mpaReplyTimeoutMillis >= 1 && mpaReplyTimeoutMillis <= 600_000, "mpaReplyTimeoutMillis",
                mpaReplyTimeoutMillis, "1..600000");
        require(sendBufferSize == 0 || sendBufferSize >= 4096 && sendBufferSize <= 1 << 30, "sendBufferSize",
                sendBufferSize, "0 (system default) or 4096..2^30");
        require(receiveBufferSize == 0 || receiveBufferSize >= 4096 && receiveBufferSize <= 1 << 30,
                "receiveBufferSize", receiveBufferSize, "0 (system default) or 4096..2^30");
        require(maxConnections >= 1 && maxConnections <= 1_000_000, "maxConnections", maxConnections, "1..1000000");
        require(maxPendingConnections >= 1 && maxPendingConnections <= 1_000_000, "maxPendingConnections",
                maxPendingConnections, "1..1000000");
        require(mpaRevision == 1 || mpaRevision == 2, "mpaRevision", mpaRevision, "1 or 2");
        require(peerToPeer == RtrMode.NONE || mpaRevision == 2, "peerToPeer", peerToPeer,
                "NONE unless mpaRevision is 2 (RTR frames are negotiated in the RFC 6581 word)");
        require(maxReadDepth >= 1 && maxReadDepth <= 128, "maxReadDepth", maxReadDepth, "1..128");
        require(firstFpduDelayMillis >= 0 && firstFpduDelayMillis <= 10_000, "firstFpduDelayMillis",
                firstFpduDelayMillis, "0..10000");
    }

    /** The defaults (also the Metatype defaults). */
    public static IwarpSettings defaults() {
        return new IwarpSettings(List.of("127.0.0.1:" + SMB_DIRECT_PORT), true, FPDU_SIZE_OF_PATH, 2, 5000, 10000, true, 0, 0,
                1024, 128, 2, RtrMode.NONE, 16, 0);
    }

    public static Builder builder() {
        return new Builder(defaults());
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Whether {@link #listenAddresses()} allows a listener on {@code address}. */
    public boolean allowsListen(InetSocketAddress address) {
        if (address == null || address.isUnresolved()) {
            return false;
        }
        for (String entry : listenAddresses) {
            Entry e = parse(entry);
            if ((e.address == null || e.address.equals(address.getAddress()))
                    && (e.port < 0 || e.port == address.getPort())) {
                return true;
            }
        }
        return false;
    }

    private record Entry(InetAddress address, int port) {
    }

    private static Entry parse(String entry) {
        String host = entry;
        int port = -1;
        if (entry.startsWith("[")) {
            int close = entry.indexOf(']');
            require(close > 0, "listenAddresses", entry, "ADDRESS, ADDRESS:PORT, [IPV6]:PORT, * or *:PORT");
            host = entry.substring(1, close);
            String rest = entry.substring(close + 1);
            if (!rest.isEmpty()) {
                require(rest.startsWith(":"), "listenAddresses", entry, "[IPV6] or [IPV6]:PORT");
                port = port(entry, rest.substring(1));
            }
        } else if (entry.indexOf(':') == entry.lastIndexOf(':') && entry.indexOf(':') >= 0) {
            host = entry.substring(0, entry.indexOf(':'));
            port = port(entry, entry.substring(entry.indexOf(':') + 1));
        }
        if (host.equals("*")) {
            return new Entry(null, port);
        }
        boolean literal = ipv4(host) || host.indexOf(':') >= 0;
        require(literal, "listenAddresses", entry, "an IP address literal (no host names), optionally with :PORT, or *");
        try {
            InetAddress address = InetAddress.getByName(host);
            require(!(address instanceof Inet4Address) || ipv4(host), "listenAddresses", entry, "an IP address literal");
            return new Entry(address, port);
        } catch (UnknownHostException e) {
            String rule = "an IP address literal: " + e.getMessage();
            throw new SettingRefusedException("smbdirect.rdma.iwarp: listenAddresses = " + entry + " is invalid (must be "
                    + rule + ")", "listenAddresses", entry, "must be " + rule);
        }
    }

    /** A dotted-quad IPv4 literal (checked here so that InetAddress never resolves a name). */
    private static boolean ipv4(String host) {
        if (!IPV4.matcher(host).matches()) {
            return false;
        }
        for (String octet : host.split("\\.")) {
            if (Integer.parseInt(octet) > 255) {
                return false;
            }
        }
        return true;
    }

    private static int port(String entry, String text) {
        int port;
        try {
            port = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            port = -1;
        }
        require(port >= 0 && port <= 65535, "listenAddresses", entry, "a port 0..65535 after the address");
        return port;
    }

    private static void require(boolean ok, String attribute, Object value, String rule) {
        if (!ok) {
            throw new SettingRefusedException(
                    "smbdirect.rdma.iwarp: " + attribute + " = " + value + " is invalid (must be " + rule + ")",
                    attribute, value, "must be " + rule);
        }
    }

    /** Builds {@link IwarpSettings}; {@link #build()} validates. Not thread-safe. */
    public static final class Builder {
        private List<String> listenAddresses;
        private boolean crc;
        private int maxFpduSize;
        private int ioThreads;
        private int mpaRequestTimeoutMillis;
        private int mpaReplyTimeoutMillis;
        private boolean tcpNoDelay;
        private int sendBufferSize;
        private int receiveBufferSize;
        private int maxConnections;
        private int maxPendingConnections;
        private int mpaRevision;
        private RtrMode peerToPeer;
        private int maxReadDepth;
        private int firstFpduDelayMillis;

        private Builder(IwarpSettings s) {
            listenAddresses = s.listenAddresses;
            crc = s.crc;
            maxFpduSize = s.maxFpduSize;
            ioThreads = s.ioThreads;
            mpaRequestTimeoutMillis = s.mpaRequestTimeoutMillis;
            mpaReplyTimeoutMillis = s.mpaReplyTimeoutMillis;
            tcpNoDelay = s.tcpNoDelay;
            sendBufferSize = s.sendBufferSize;
            receiveBufferSize = s.receiveBufferSize;
            maxConnections = s.maxConnections;
            maxPendingConnections = s.maxPendingConnections;
            mpaRevision = s.mpaRevision;
            peerToPeer = s.peerToPeer;
            maxReadDepth = s.maxReadDepth;
            firstFpduDelayMillis = s.firstFpduDelayMillis;
        }

        public Builder listenAddresses(String... entries) {
            listenAddresses = List.of(entries);
            return this;
        }

        public Builder listenAddresses(List<String> entries) {
            listenAddresses = List.copyOf(entries);
            return this;
        }

        public Builder crc(boolean value) {
            crc = value;
            return this;
        }

        public Builder maxFpduSize(int value) {
            maxFpduSize = value;
            return this;
        }

        public Builder ioThreads(int value) {
            ioThreads = value;
            return this;
        }

        public Builder mpaRequestTimeoutMillis(int value) {
            mpaRequestTimeoutMillis = value;
            return this;
        }

        public Builder mpaReplyTimeoutMillis(int value) {
            mpaReplyTimeoutMillis = value;
            return this;
        }

        public Builder tcpNoDelay(boolean value) {
            tcpNoDelay = value;
            return this;
        }

        public Builder sendBufferSize(int value) {
            sendBufferSize = value;
            return this;
        }

        public Builder receiveBufferSize(int value) {
            receiveBufferSize = value;
            return this;
        }

        public Builder maxConnections(int value) {
            maxConnections = value;
            return this;
        }

        public Builder maxPendingConnections(int value) {
            maxPendingConnections = value;
            return this;
        }

        public Builder mpaRevision(int value) {
            mpaRevision = value;
            return this;
        }

        public Builder peerToPeer(RtrMode value) {
            peerToPeer = value;
            return this;
        }

        public Builder maxReadDepth(int value) {
            maxReadDepth = value;
            return this;
        }

        public Builder firstFpduDelayMillis(int value) {
            firstFpduDelayMillis = value;
            return this;
        }

        public IwarpSettings build() {
            return new IwarpSettings(listenAddresses, crc, maxFpduSize, ioThreads, mpaRequestTimeoutMillis,
                    mpaReplyTimeoutMillis, tcpNoDelay, sendBufferSize, receiveBufferSize, maxConnections,
                    maxPendingConnections, mpaRevision, peerToPeer, maxReadDepth, firstFpduDelayMillis);
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "IwarpSettings[listen %s, crc %s, maxFpduSize %d, ioThreads %d, "
                + "mpa timeouts %d/%d ms, tcpNoDelay %s, buffers %d/%d, maxConnections %d, maxPendingConnections %d, "
                + "MPA rev %d, p2p %s, maxReadDepth %d, first FPDU delay %d ms]", listenAddresses, crc, maxFpduSize,
                ioThreads, mpaRequestTimeoutMillis, mpaReplyTimeoutMillis, tcpNoDelay, sendBufferSize, receiveBufferSize,
                maxConnections, maxPendingConnections, mpaRevision, peerToPeer, maxReadDepth, firstFpduDelayMillis);
    }
}
