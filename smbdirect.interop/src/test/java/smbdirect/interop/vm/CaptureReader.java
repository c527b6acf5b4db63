package smbdirect.interop.vm;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import smbdirect.rdma.tck.LoopbackCapture;

/**
 * What the interop tests read from a {@link LoopbackCapture} beyond its own decodes: every MPA
 * frame and FPDU as a {@link CapturedPdu}, a TCP connection's bytes as a {@link TcpStream}, and how
 * each connection ended.
 */
public final class CaptureReader {

    private CaptureReader() {
    }

    /** The capture filter for TCP connections to or from any of {@code ports}. */
    public static String tcpPorts(List<Integer> ports) {
        if (ports.isEmpty()) {
            throw new IllegalArgumentException("no port to capture");
        }
        return ports.stream().map(p -> "tcp port " + p).collect(Collectors.joining(" or "));
    }

    /**
     * Every MPA frame and FPDU of the capture as Wireshark's iWARP (MPA, DDP/RDMAP), SMB Direct and
     * SMB2 dissectors decode them, in capture order, with malformed-packet and expert items
     * attached to the PDU they concern. The PDML is kept next to the capture.
     */
    public static List<CapturedPdu> pdus(LoopbackCapture capture) throws IOException, InterruptedException {
        return Pdml.parse(capture.pdml("pdus", "-Y", "iwarp_mpa || iwarp_ddp_rdmap || _ws.malformed"));
    }

    /**
     * The bytes of TCP stream {@code stream} (tshark's index) in each direction, as tshark
     * reassembles them ({@code -z follow,tcp,raw}).
     */
    public static TcpStream stream(LoopbackCapture capture, int stream) throws IOException, InterruptedException {
        return TcpStream.parse(capture.tshark("-q", "-z", "follow,tcp,raw," + stream));
    }

    /**
     * One line per TCP segment that carries FIN or RST: {@code stream srcport dstport F|R}; shows how
     * each connection ended.
     */
    public static List<String> tcpEnds(LoopbackCapture capture) throws IOException, InterruptedException {
        String out = capture.tshark("-Y", "tcp.flags.fin == 1 || tcp.flags.reset == 1", "-T", "fields", "-e",
                "tcp.stream", "-e", "tcp.srcport", "-e", "tcp.dstport", "-e", "tcp.flags.fin", "-e", "tcp.flags.reset");
        List<String> ends = new ArrayList<>();
        for (String line : out.split("\n")) {
            String[] f = line.split("\t", -1);
            if (f.length == 5) {
                ends.add(f[0] + " " + f[1] + " " + f[2] + " " + (isSet(f[4]) ? "R" : "F"));
            }
        }
        return ends;
    }

    private static boolean isSet(String flag) {
        return flag.equals("1") || flag.equalsIgnoreCase("true");
    }
}
