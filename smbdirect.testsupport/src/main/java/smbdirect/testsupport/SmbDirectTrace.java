package smbdirect.testsupport;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Wireshark's own SMB Direct dissector ({@code smb_direct}, through tshark) applied to a trace the
 * project wrote with {@code smbdirect.impl.trace.PcapTraceWriter}: linktype 252 (exported PDU)
 * naming the {@code infiniband} dissector, an InfiniBand LRH and BTH (RC SEND ONLY) per message,
 * the initiator LID 1 and the passive side LID 2. The independent judge of what the engine and the
 * test kit put into SMB Direct messages. Static, thread-safe.
 *
 * <p>tshark runs with two passes (so that the first fragments of a message name the frame it is
 * reassembled in), reassembly on, and the SMC-R heuristic off: on {@code infiniband.payload} it
 * runs before SMB Direct's and claims some keepalives (its v2 LLC check). The PDML is kept next to
 * the trace ({@code <trace>.pdml}), tshark's messages in {@code <trace>.tshark.log}.
 */
public final class SmbDirectTrace {

    /** LID the trace writer gives the initiator (the active side). */
    public static final int INITIATOR_LID = 1;
    private static final long TIMEOUT_SECONDS = 120;

    private SmbDirectTrace() {
    }

    /** One frame as tshark dissected it. */
    public record Frame(Pdml.Packet packet) {

        /** Frame number, from 1. */
        public int number() {
            return packet.number();
        }

        /** Whether the initiator sent it (the LRH's source LID is the initiator's). */
        public boolean fromInitiator() {
            return number("infiniband.lrh.slid") == INITIATOR_LID;
        }

        /** {@code c2s} when the initiator sent it, else {@code s2c}. */
        public String direction() {
            return fromInitiator() ? "c2s" : "s2c";
        }

        /** The protocols of the frame, outermost first ({@code frame.protocols}). */
        public List<String> protocols() {
            List<Pdml.Field> p = packet.all("frame.protocols");
            return p.isEmpty() ? List.of() : Arrays.asList(p.get(0).show().split(":"));
        }

        /** Whether the smb_direct dissector took the frame. */
        public boolean smbDirect() {
            return protocols().contains("smb_direct");
        }

        /** The protocols dissected inside the SMB Direct payload ({@code smb2} for an SMB2 message). */
        public List<String> payloadProtocols() {
            List<String> p = protocols();
            int at = p.indexOf("smb_direct");
            return at < 0 ? List.of() : p.subList(at + 1, p.size());
        }

        /** {@code NegotiateRequest}, {@code NegotiateResponse} or {@code DataMessage}; null when none. */
        public String type() {
            if (has("smb_direct.negotiate_request")) {
                return "NegotiateRequest";
            }
            if (has("smb_direct.negotiate_response")) {
                return "NegotiateResponse";
            }
            if (has("smb_direct.data_message")) {
                return "DataMessage";
            }
            return null;
        }

        /** Whether any layer has a field of that name (such as {@code smb_direct.reassembled_in}). */
        public boolean has(String field) {
            return !packet.all(field).isEmpty();
        }

        /** The first field of that name as a number; fails naming the frame when there is none. */
        public long number(String field) {
            List<Pdml.Field> f = packet.all(field);
            if (f.isEmpty()) {
                throw new AssertionError("frame " + number() + " has no field " + field + ": " + this);
            }
            return f.get(0).number();
        }

        /** The names of the fields of the {@code smb_direct} layer, in order (the message's header fields). */
        public List<String> smbDirectFields() {
            List<String> out = new ArrayList<>();
            Pdml.Layer l = packet.layer("smb_direct");
            if (l != null) {
                for (Pdml.Field f : l.fields()) {
                    out.add(f.name());
                }
            }
            return out;
        }

        /** Wireshark's expert messages on the frame (empty for a clean one). */
        public List<String> expert() {
            List<String> out = new ArrayList<>();
            for (Pdml.Field f : packet.all("_ws.expert.message")) {
                out.add(f.show());
            }
            return out;
        }

        /** Whether a dissector gave up on the frame as malformed. */
        public boolean malformed() {
            return packet.layer("_ws.malformed") != null || !packet.all("_ws.malformed").isEmpty();
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("frame ").append(number()).append(' ').append(protocols());
            for (Pdml.Layer l : packet.layers()) {
                if (l.name().equals("smb_direct")) {
                    for (Pdml.Field f : l.fields()) {
                        b.append(' ').append(f.name()).append('=').append(f.show());
                    }
                }
            }
            if (!expert().isEmpty()) {
                b.append(" expert=").append(expert());
            }
            return b.toString();
        }
    }

    /**
     * Dissects {@code trace} with tshark. A missing tshark is a missing judge ({@link Judges#tool}).
     *
     * @return one frame per message of the trace, in order
     */
    public static List<Frame> decode(Path trace) throws IOException, InterruptedException {
        Path tshark = Judges.tool("tshark", "apt-get install tshark");
        Path pdml = trace.resolveSibling(trace.getFileName() + ".pdml");
        Path log = trace.resolveSibling(trace.getFileName() + ".tshark.log");
        List<String> cmd = List.of(tshark.toString(), "-n", "-2", "-r", trace.toString(), "--disable-heuristic",
                "smcr_infiniband", "-o", "smb_direct.reassemble_smb_direct:TRUE", "-T", "pdml");
        Process p = new ProcessBuilder(cmd).redirectOutput(pdml.toFile()).redirectError(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("tshark did not finish within " + TIMEOUT_SECONDS + " s: " + cmd);
        }
        if (p.exitValue() != 0) {
            throw new AssertionError("tshark failed (exit " + p.exitValue() + "), see " + log + ": " + cmd);
        }
        List<Frame> frames = new ArrayList<>();
        for (Pdml.Packet packet : Pdml.read(pdml)) {
            frames.add(new Frame(packet));
        }
        return frames;
    }

    /** tshark's version line ({@code TShark (Wireshark) 4.0.17 ...}), for saying which judge ruled. */
    public static String version() throws IOException, InterruptedException {
        Path tshark = Judges.tool("tshark", "apt-get install tshark");
        Process p = new ProcessBuilder(tshark.toString(), "--version")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String first = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                .lines().filter(l -> l.startsWith("TShark")).findFirst().orElse("tshark (version unknown)");
        p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        return first.strip();
    }
}
