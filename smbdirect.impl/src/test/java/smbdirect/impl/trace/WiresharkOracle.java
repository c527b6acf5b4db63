package smbdirect.impl.trace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

import smbdirect.testsupport.Judges;
import smbdirect.testsupport.SmbDirectTrace;

/**
 * Messages written with {@link PcapTraceWriter} into a trace and dissected by Wireshark's own SMB
 * Direct dissector ({@link SmbDirectTrace}): the independent oracle of the wire codec and the
 * engine. Static methods.
 */
public final class WiresharkOracle {

    /** The first record's timestamp: 1700000000 s; each further record 1000 us later. */
    public static final long T0_MICROS = 1_700_000_000_000_000L;

    private WiresharkOracle() {
    }

    /** One SMB Direct message and its direction. */
    public record Msg(boolean fromInitiator, byte[] bytes) {
    }

    /** Writes {@code msgs} into {@code file}, one record each, 1000 us apart from {@link #T0_MICROS}. */
    public static Path write(List<Msg> msgs, Path file) throws IOException {
        try (PcapTraceWriter w = PcapTraceWriter.open(file)) {
            for (int i = 0; i < msgs.size(); i++) {
                w.record(msgs.get(i).fromInitiator(), ByteBuffer.wrap(msgs.get(i).bytes()), T0_MICROS + i * 1000L);
            }
        }
        return file;
    }

    /**
     * Writes {@code msgs} into {@code dir/name.pcap}, has tshark dissect it, and says on the console
     * what was judged.
     */
    public static List<SmbDirectTrace.Frame> check(List<Msg> msgs, Path dir, String name)
            throws IOException, InterruptedException {
        return decode(write(msgs, dir.resolve(name + ".pcap")));
    }

    /** Has tshark dissect {@code trace} and says on the console what was judged. */
    public static List<SmbDirectTrace.Frame> decode(Path trace) throws IOException, InterruptedException {
        List<SmbDirectTrace.Frame> frames = SmbDirectTrace.decode(trace);
        long smbDirect = frames.stream().filter(SmbDirectTrace.Frame::smbDirect).count();
        Judges.report(SmbDirectTrace.version() + " dissected " + frames.size() + " frames of " + trace.getFileName()
                + ", " + smbDirect + " of them as SMB Direct");
        return frames;
    }
}
