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
     * Like {@link #pdus(LoopbackCapture)}, for the frames the display filter {@code filter} selects
     * (every PDU of such a frame): for captures too large to hold as one PDML, e.g. the frames with
     * anything but RDMA Writes and Read Responses. The PDML is kept next to the capture as
     * {@code <capture>.<name>.pdml}.
     */
    public static List<CapturedPdu> pdus(LoopbackCapture capture, String name, String filter)
            throws IOException, InterruptedException {
        return Pdml.parse(capture.pdml(name, "-Y", filter));
    }

    /**
     * One FPDU as the bulk decode ({@link #fpdus}) sees it.
     *
     * @param frame the capture frame the FPDU ended in
     * @param stream tshark's TCP stream index
     * @param srcPort the sending side's TCP port
     * @param opcode the RDMAP opcode (RFC 5040 §4.3)
     * @param ulpduLength MPA's ULPDU_Length
     * @param stag the DDP STag of a tagged FPDU (Write, Read Response: the data sink's), else 0
     * @param readSinkStag a Read Request's Data Sink STag, else 0
     * @param readSourceStag a Read Request's Data Source STag, else 0
     * @param readSize a Read Request's RDMA Read Message Size, else 0
     */
    public record Fpdu(int frame, int stream, int srcPort, int opcode, int ulpduLength, int stag, int readSinkStag,
            int readSourceStag, long readSize) {

        /** The payload of a tagged FPDU: ULPDU_Length less the 14-byte DDP/RDMAP tagged header. */
        public int taggedPayload() {
            return ulpduLength - 14;
        }
    }

    /**
     * Every FPDU of the capture, from tshark's field output (light enough for captures of tens of
     * MiB, where PDML is not): opcode, length, STag and a Read Request's fields. Fails naming the
     * frame when the fields of a frame do not line up (an FPDU without a length or opcode).
     */
    public static List<Fpdu> fpdus(LoopbackCapture capture) throws IOException, InterruptedException {
        String out = capture.tshark("-Y", "iwarp_ddp_rdmap", "-T", "fields", "-E", "occurrence=a", "-E",
                "aggregator=,", "-e", "frame.number", "-e", "tcp.stream", "-e", "tcp.srcport", "-e",
                "iwarp_rdma.opcode", "-e", "iwarp_mpa.ulpdulength", "-e", "iwarp_ddp.stag", "-e", "iwarp_rdma.sinkstag",
                "-e", "iwarp_rdma.srcstag", "-e", "iwarp_rdma.rdmardsz");
        List<Fpdu> fpdus = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = java.util.Arrays.copyOf(line.split("\t", -1), 9); // tshark's output is stripped
            int frame = Integer.parseInt(f[0]);
            String[] ops = f[3].split(",");
            String[] lengths = f[4].split(",");
            String[] stags = values(f[5]);
            String[] sinks = values(f[6]);
            String[] sources = values(f[7]);
            String[] sizes = values(f[8]);
            if (lengths.length != ops.length) {
                throw new AssertionError("frame " + frame + ": opcodes and lengths do not line up: " + line);
            }
            int tagged = 0;
            int reads = 0;
            for (int i = 0; i < ops.length; i++) {
                int op = Integer.decode(ops[i]);
                int stag = 0;
                int sink = 0;
                int source = 0;
                long size = 0;
                if (op == 0 || op == 2) {
                    if (tagged >= stags.length) {
                        throw new AssertionError("frame " + frame + ": a tagged FPDU without an STag: " + line);
                    }
                    stag = (int) Long.decode(stags[tagged++]).longValue();
                } else if (op == 1) {
                    if (reads >= sinks.length || reads >= sources.length || reads >= sizes.length) {
                        throw new AssertionError("frame " + frame + ": a Read Request without its fields: " + line);
                    }
                    sink = (int) Long.decode(sinks[reads]).longValue();
                    source = (int) Long.decode(sources[reads]).longValue();
                    size = Long.decode(sizes[reads++]);
                }
                fpdus.add(new Fpdu(frame, Integer.parseInt(f[1]), Integer.parseInt(f[2]), op,
                        Integer.decode(lengths[i]), stag, sink, source, size));
            }
        }
        return fpdus;
    }

    private static String[] values(String field) {
        return field == null || field.isEmpty() ? new String[0] : field.split(",");
    }

    /**
     * Wireshark's CRC verdicts on every FPDU of the capture (from its text decode: the verdict is
     * only in the shown text, "0x... (Good CRC32)" or "(Bad CRC32, should be 0x...)").
     *
     * @param good the FPDUs whose CRC is good
     * @param others the CRC lines of every other FPDU (bad, or not checked because CRC is off)
     */
    public record CrcVerdicts(int good, List<String> others) {
    }

    public static CrcVerdicts crcVerdicts(LoopbackCapture capture) throws IOException, InterruptedException {
        String out = capture.tshark("-Y", "iwarp_ddp_rdmap", "-O", "iwarp_mpa");
        int good = 0;
        List<String> others = new ArrayList<>();
        for (String line : out.split("\n")) {
            String l = line.strip();
            if (l.startsWith("CRC check:") && l.endsWith("(Good CRC32)")) {
                good++;
            } else if (l.startsWith("CRC check:") || l.startsWith("CRC:")) {
                others.add(l);
            }
        }
        return new CrcVerdicts(good, others);
    }

    /**
     * A frame Wireshark marked malformed or gave an expert item other than TCP's sequence analysis.
     *
     * @param frame the frame number
     * @param srcPort its TCP source port
     * @param messages the expert messages (group in parentheses), TCP's sequence analysis left out
     * @param malformed whether Wireshark marked the frame malformed
     * @param info tshark's summary line
     */
    public record Problem(int frame, int srcPort, List<String> messages, boolean malformed, String info) {
    }

    /**
     * The frames Wireshark marked malformed or gave an expert item other than TCP's sequence analysis
     * (the expert group "Sequence": SYN, FIN, keep-alive, window and retransmission notes); empty
     * when every frame is clean.
     */
    public static List<Problem> problemFrames(LoopbackCapture capture) throws IOException, InterruptedException {
        String out = capture.tshark("-Y", "_ws.malformed || _ws.expert", "-T", "fields", "-E", "occurrence=a",
                "-E", "aggregator=|", "-e", "frame.number", "-e", "tcp.srcport", "-e", "_ws.expert.message", "-e",
                "_ws.expert.group", "-e", "_ws.malformed", "-e", "_ws.col.Info");
        List<Problem> frames = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = java.util.Arrays.stream(java.util.Arrays.copyOf(line.split("\t", -1), 6))
                    .map(x -> x == null ? "" : x).toArray(String[]::new); // tshark's output is stripped
            String[] messages = f[2].split("\\|", -1);
            String[] groups = f[3].split("\\|", -1);
            List<String> kept = new ArrayList<>();
            for (int i = 0; i < messages.length; i++) {
                String group = i < groups.length ? groups[i] : "";
                if (!messages[i].isEmpty() && !isSequenceGroup(group)) {
                    kept.add(messages[i] + " (group " + group + ")");
                }
            }
            if (!kept.isEmpty() || !f[4].isEmpty()) {
                frames.add(new Problem(Integer.parseInt(f[0]), f[1].isEmpty() ? 0 : Integer.parseInt(f[1].split("\\|")[0]),
                        kept, !f[4].isEmpty(), f[5]));
            }
        }
        return frames;
    }

    /** Wireshark's expert group PI_SEQUENCE (0x02000000: TCP's analysis of the byte stream). */
    private static boolean isSequenceGroup(String group) {
        return !group.isEmpty() && Long.decode(group) == 0x02000000L;
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
