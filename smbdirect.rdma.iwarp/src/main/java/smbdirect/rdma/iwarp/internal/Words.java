package smbdirect.rdma.iwarp.internal;

import java.util.List;
import java.util.Locale;

import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.IwarpStatistics;
import smbdirect.rdma.iwarp.RtrMode;

/**
 * The provider's settings and counters in words with units, as operators read them in the runtime
 * DTO, the shell ({@code smbd:providers}) and the Web Console. Stateless.
 */
public final class Words {

    private Words() {
    }

    /**
     * E.g. "may listen on 127.0.0.1:5445; MPA revision 2, CRC32C asked for; FPDUs sized to each connection's TCP MSS;
     * 2 I/O threads; TCP_NODELAY on; socket buffers: system default; at most 1,024 TCP connections;
     * MPA Request within 5 s, Reply within 10 s; RDMA Read depth up to 16; no peer-to-peer RTR".
     */
    public static String settings(IwarpSettings s) {
        StringBuilder b = new StringBuilder(listen(s.listenAddresses()));
        b.append("; MPA revision ").append(s.mpaRevision()).append(s.crc() ? ", CRC32C asked for" : ", no CRC32C asked for");
        if (s.maxFpduSize() == IwarpSettings.FPDU_SIZE_OF_PATH) {
            b.append("; FPDUs sized to each connection's TCP MSS");
        } else {
            b.append("; FPDUs up to ").append(bytes(s.maxFpduSize()));
        }
        b.append("; ").append(s.ioThreads()).append(s.ioThreads() == 1 ? " I/O thread" : " I/O threads");
        b.append("; TCP_NODELAY ").append(s.tcpNoDelay() ? "on" : "off");
        if (s.sendBufferSize() == 0 && s.receiveBufferSize() == 0) {
            b.append("; socket buffers: system default");
        } else {
            b.append("; socket buffers: send ").append(buffer(s.sendBufferSize())).append(", receive ")
                    .append(buffer(s.receiveBufferSize()));
        }
        b.append("; at most ").append(String.format(Locale.ROOT, "%,d", s.maxConnections())).append(" TCP connections");
        b.append(", ").append(String.format(Locale.ROOT, "%,d", s.maxPendingConnections()))
                .append(" of them awaiting their MPA Request");
        b.append("; MPA Request within ").append(millis(s.mpaRequestTimeoutMillis())).append(", Reply within ")
                .append(millis(s.mpaReplyTimeoutMillis()));
        b.append("; RDMA Read depth up to ").append(s.maxReadDepth());
        b.append(s.peerToPeer() == RtrMode.NONE ? "; no peer-to-peer RTR" : "; peer-to-peer RTR " + rtr(s.peerToPeer()));
        if (s.firstFpduDelayMillis() > 0) {
            b.append("; first FPDU ").append(millis(s.firstFpduDelayMillis())).append(" after the MPA Reply");
        }
        return b.toString();
    }

    /** E.g. "TCP connections 3 of at most 1,024 (1 in MPA setup), 0 refused at the cap; 2 endpoints; 1 listener; Terminates sent 0, received 0". */
    public static String statistics(IwarpStatistics st, int maxConnections, long refusedAtCap) {
        return String.format(Locale.ROOT,
                "TCP connections %,d of at most %,d (%,d awaiting the MPA Request), %,d refused at the cap; "
                        + "%,d %s; %,d %s; Terminates sent %,d, received %,d",
                st.connections(), maxConnections, st.pendingRequests(), refusedAtCap, st.endpoints(),
                st.endpoints() == 1 ? "endpoint" : "endpoints", st.listeners(),
                st.listeners() == 1 ? "listener" : "listeners", st.terminatesSent(), st.terminatesReceived());
    }

    private static String listen(List<String> entries) {
        if (entries.isEmpty()) {
            return "listens nowhere (no listenAddresses: connects only)";
        }
        StringBuilder b = new StringBuilder("may listen on ");
        for (int i = 0; i < entries.size(); i++) {
            if (i > 0) {
                b.append(", ");
            }
            String e = entries.get(i);
            int colon = e.startsWith("[") ? e.indexOf("]:") + 1 : e.indexOf(':') == e.lastIndexOf(':') ? e.indexOf(':') : -1;
            String host = colon > 0 ? e.substring(0, colon) : e;
            String port = colon > 0 ? e.substring(colon + 1) : null;
            b.append(host.equals("*") ? "any address" : host);
            b.append(port == null ? " (any port)" : host.equals("*") ? " port " + port : ":" + port);
        }
        return b.toString();
    }

    private static String rtr(RtrMode mode) {
        return switch (mode) {
            case WRITE -> "zero-length RDMA Write";
            case READ -> "zero-length RDMA Read";
            case WRITE_OR_READ -> "Write or Read";
            default -> mode.name();
        };
    }

    private static String buffer(int size) {
        return size == 0 ? "system default" : bytes(size);
    }

    /**
     * One connection in RDMA mode, e.g. "CRC32C on; FPDUs of 1,448 B sent (the path's TCP MSS);
     * IRD 16, ORD 16".
     */
    static String connection(boolean crc, int fpduSize, boolean ofPath, int ird, int ord) {
        return "CRC32C " + (crc ? "on" : "off") + "; FPDUs of " + bytes(fpduSize) + " sent ("
                + (ofPath ? "the path's TCP MSS" : "maxFpduSize") + "); IRD " + ird + ", ORD " + ord;
    }

    private static String millis(int ms) {
        return ms % 1000 == 0 ? ms / 1000 + " s" : String.format(Locale.ROOT, "%,d ms", ms);
    }

    /** Whole KiB/MiB/GiB when exact, else bytes with separators ("1,460 B", "64 KiB"). */
    static String bytes(long n) {
        String[] units = {"KiB", "MiB", "GiB"};
        long v = n;
        int u = -1;
        while (v >= 1024 && v % 1024 == 0 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return u < 0 ? String.format(Locale.ROOT, "%,d B", n) : String.format(Locale.ROOT, "%,d %s", v, units[u]);
    }
}
