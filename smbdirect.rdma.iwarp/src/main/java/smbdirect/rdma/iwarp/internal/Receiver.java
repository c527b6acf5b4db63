package smbdirect.rdma.iwarp.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.zip.CRC32C;

import smbdirect.rdma.iwarp.internal.wire.Be;
import smbdirect.rdma.iwarp.internal.wire.Ddp;
import smbdirect.rdma.iwarp.internal.wire.Fpdu;
import smbdirect.rdma.iwarp.internal.wire.Rdmap;
import smbdirect.rdma.iwarp.internal.wire.TerminateError;

/**
 * The receive side of one endpoint in RDMA mode: MPA framing and CRC (RFC 5044 §4, §6). Parses the
 * TCP byte stream into FPDUs and reads it in one of two ways, chosen per read by the size of the
 * peer's FPDUs ({@link #staging()}):
 * <ul>
 * <li><b>Direct</b> (large FPDUs, such as loopback's 65,480 bytes): headers land first, and once a
 * header is checked the payload is read straight to where {@link Placement} puts it (the posted
 * receive of a Send, the registered target of an RDMA Write or Read Response), together with the
 * PAD, CRC and the first bytes of the next FPDU in one scattering read. Those first bytes are at
 * most 20, the smallest FPDU (a zero-length tagged segment), so a read never reaches past the next
 * header; a tagged header (16 bytes) leaves up to 4 payload bytes to copy. While a Send or a Read
 * Response is read, the same read also reaches into the FPDUs predicted to follow
 * ({@link ReadAhead}).</li>
 * <li><b>Staged</b> (small FPDUs, such as the 1,448 bytes of 1500-byte Ethernet): one read takes a
 * chunk of the stream, up to {@link IoLoop#STAGING_BYTES}, into the loop's staging buffer, and
 * {@link #feed} frames it and copies each piece to the same place the direct read would have put it
 * (header, payload, PAD and CRC), so a system call serves dozens of FPDUs, RDMA Writes included,
 * whose length is not announced and which the direct path therefore reads one per call. Sends and
 * Read Responses are staged too: one copy from a buffer still in the cache cost less here than the
 * read-ahead's prediction and replay of each small FPDU.</li>
 * </ul>
 * Both ways hand every FPDU, in stream order, to the same checks at the same points, whatever the
 * read boundaries: FPDUs may span reads and one read may hold many (iwarp.md §3.5, §7).
 *
 * <p>Checks here (iwarp.md §3.6, in Linux siw's order): DDP version, RDMAP version, opcode and its
 * model, ULPDU_Length against the header; then {@link Placement}'s checks of the segment, before a
 * byte of its payload is placed; then the CRC32C of every FPDU when negotiated (RFC 5044 §6.1). Any
 * failure ends the connection with one Terminate naming layer, type and code
 * ({@link Termination#failReceive}), and nothing after the failed FPDU is processed; a Terminate of
 * the peer is read here and ends it without an answer ({@link Termination#peerTerminated}). I/O
 * thread only; allocation-free (after the first read ahead, see {@link ReadAhead}, and the loop's
 * first staged read).
 */
final class Receiver {

    /** Bytes of the next FPDU read together with the end of the current one. */
    static final int PREFIX = Fpdu.MIN_SIZE;
    private static final int ROUNDS = 16;
    /**
     * The system property that sets the largest peer FPDU read through the staging buffer, in bytes
     * (0: never), for measurements; default {@link #STAGING_LIMIT}.
     */
    static final String STAGING_PROPERTY = "smbdirect.iwarp.receiveStagingMaxFpdu";
    /** The default of {@link #STAGING_PROPERTY}: see {@link #staging()}. */
    static final int STAGING_LIMIT = 8 * 1024;

    private final IwarpEndpoint ep;
    private final Termination termination;
    private final SocketChannel socket;
    private final CRC32C crc;
    private final OutboundReads orq;
    private final ByteBuffer hdr = ByteBuffer.allocateDirect(Rdmap.READ_REQUEST_HEADER);
    private final ByteBuffer cur = ByteBuffer.allocateDirect(Rdmap.READ_REQUEST_HEADER);
    private final ByteBuffer trailer = ByteBuffer.allocateDirect(8);
    private final ByteBuffer term = ByteBuffer.allocateDirect(64);
    private final ByteBuffer[] iov = new ByteBuffer[3 + 3 * ReadAhead.MAX_FPDUS];
    private final ReadAhead readAhead;
    private final Placement placement;
    /** Bytes read past a tagged header (at most 4). */
    private final byte[] carried = new byte[PREFIX];

    private boolean inHeader = true;
    private int headerBytes;
    private int opcode;
    private int payload;
    private int pad;
    /** Where the payload of the FPDU in progress goes ({@link Placement#target()}, or a Terminate's copy). */
    private ByteBuffer target;
    private int crcMark;
    private boolean terminate;
    private boolean firstFpduSeen;
    private long fpdusReceived;
    private long socketReads;
    private long bytesRead;
    private long stagedBytes;
    /** The largest FPDU of the peer so far (bytes). */
    private int peerFpdu;
    /** Peer FPDUs up to this size are read through the staging buffer ({@link #staging()}). */
    private int stagingLimit;

    Receiver(IwarpEndpoint ep, SocketChannel socket, boolean crcOn, WorkRequestRing<RecvWr> rq, RegionTable regions,
            InboundReads ird, OutboundReads orq) {
        this.ep = ep;
        this.termination = ep.termination;
        this.socket = socket;
        this.crc = crcOn ? new CRC32C() : null;
        this.orq = orq;
        this.readAhead = new ReadAhead(ep, this, rq);
        this.placement = new Placement(ep, cur, rq, regions, ird, orq, readAhead);
        this.stagingLimit = ep.provider.receiveStagingLimit();
    }

    /** {@link #STAGING_PROPERTY}, or {@link #STAGING_LIMIT} when it is unset or not a number from 0 to 65,536. */
    static int stagingLimitProperty() {
        Integer value = Integer.getInteger(STAGING_PROPERTY);
        return value == null || value < 0 || value > 65_536 ? STAGING_LIMIT : value;
    }

    long fpdusReceived() {
        return fpdusReceived;
    }

    /** Reads from the socket that returned bytes or the end of the stream. */
    long socketReads() {
        return socketReads;
    }

    /** Bytes read ahead that a misprediction sent through the spill buffer. */
    long spilledBytes() {
        return readAhead.spilledBytes();
    }

    /**
     * Bytes staged so far (read into the loop's staging buffer and copied to their place); with
     * {@link #socketReads()} and {@link #fpdusReceived()}, what a test or a benchmark needs to see
     * which path the stream took.
     */
    long stagedBytes() {
        return stagedBytes;
    }

    /** Bytes read from the socket in RDMA mode. */
    long bytesRead() {
        return bytesRead;
    }

    /** The largest FPDU the peer sent so far (bytes, MPA header, PAD and CRC included); 0 before the first. */
    int peerFpdu() {
        return peerFpdu;
    }

    /** Tests and measurements: stage FPDUs of at most {@code limit} bytes (0: never stage). I/O thread. */
    void stagingLimit(int limit) {
        stagingLimit = limit;
    }

    /**
     * The socket is readable: reads and processes up to a bounded number of reads. While the peer's
     * FPDUs are small ({@link #staging()}) each read takes a chunk into the loop's staging buffer that
     * {@link #feed} then frames, checks and copies to its places; else each read goes straight to
     * where the bytes go (the header of the next FPDU; the payload of the FPDU in progress with its
     * PAD, CRC and the next header, and for Sends and Read Responses the FPDUs {@link ReadAhead}
     * predicts). A read that returns less than it asked for emptied the socket: the loop stops
     * there, and the selector reports the next bytes (no read that only finds the socket empty).
     */
    void onReadable() throws IOException {
        for (int round = 0; round < ROUNDS; round++) {
            readAhead.reset();
            long asked;
            long n;
            ByteBuffer chunk = null;
            if (staging()) {
                chunk = ep.loop.staging();
                asked = chunk.remaining();
                n = socket.read(chunk);
            } else if (inHeader) {
                hdr.limit(headerNeed());
                asked = hdr.remaining();
                n = socket.read(hdr);
            } else {
                int k = 0;
                if (target != null && target.hasRemaining()) {
                    iov[k++] = target;
                }
                if (!terminate && trailer.hasRemaining()) {
                    iov[k++] = trailer;
                }
                hdr.limit(PREFIX);
                iov[k++] = hdr;
                if (!terminate) {
                    k = placement.readAhead(iov, k);
                }
                asked = 0;
                for (int i = 0; i < k; i++) {
                    asked += iov[i].remaining();
                }
                n = socket.read(iov, 0, k);
            }
            if (n < 0) {
                ep.peerClosed(!inHeader || hdr.position() > 0);
                return;
            }
            if (n == 0) {
                return;
            }
            socketReads++;
            bytesRead += n;
            if (chunk != null) {
                stagedBytes += n;
                if (!feed(chunk.flip())) {
                    return;
                }
            } else if (!process() || readAhead.pending() && !readAhead.replay()) {
                return;
            }
            if (n < asked) {
                return;
            }
        }
    }

    /**
     * Whether the next read goes through the staging buffer: while the largest FPDU the peer sent so
     * far is at most {@link #stagingLimit} bytes (and before its first). A direct read costs a system
     * call per FPDU (a Write's length is not announced, so nothing is read ahead into its target); a
     * staged read takes up to {@link IoLoop#STAGING_BYTES} in one system call and costs one copy of
     * each byte. Measured across a veth pair (docs/benchmarks/2026-11-27-ethernet-fpdus.md, "Jumbo frames
     * read directly"): at 1500-byte Ethernet's 1,448-byte
     * FPDUs staging carries RDMA Writes at 0.95 of {@code iperf3} against 0.75 read directly;
     * at jumbo frames' 8,944 bytes the direct read carries them at 1.8 against 0.79 staged. So
     * FPDUs up to {@link #STAGING_LIMIT} (8 KiB) are staged and larger ones (jumbo frames,
     * loopback's 65,480 bytes) are read directly.
     */
    private boolean staging() {
        return stagingLimit > 0 && peerFpdu <= stagingLimit;
    }

    /**
     * {@link ReadAhead}: the FPDU in progress places its payload at exactly {@code [offset, offset +
     * length)} of {@code region}, the place a predicted FPDU was read into.
     */
    boolean expects(IwarpRegion region, int offset, int length) {
        return !inHeader && !terminate && placement.placesInto(region) && target != null
                && target.position() == offset && target.remaining() == length;
    }

    /** {@link ReadAhead}: {@code n} bytes of the payload in progress were read in place. */
    boolean placed(int n) {
        target.position(target.position() + n);
        return process();
    }

    /** {@link ReadAhead}: PAD and CRC bytes of the FPDU in progress. */
    boolean trailerRead(ByteBuffer bytes) {
        trailer.put(bytes);
        return process();
    }

    /** {@link ReadAhead}: header bytes of the next FPDU. */
    boolean headerRead(ByteBuffer bytes) {
        hdr.limit(hdr.capacity());
        hdr.put(bytes);
        return process();
    }

    /** Processes {@code source} as if it had been read from the socket. */
    boolean feed(ByteBuffer source) {
        while (source.hasRemaining()) {
            if (!ep.isReceiving()) {
                return false;
            }
            ByteBuffer into;
            if (inHeader) {
                into = hdr.limit(headerNeed());
            } else if (target != null && target.hasRemaining()) {
                into = target;
            } else if (!terminate && trailer.hasRemaining()) {
                into = trailer;
            } else {
                into = hdr.limit(PREFIX);
            }
            int m = Math.min(source.remaining(), into.remaining());
            into.put(into.position(), source, source.position(), m);
            into.position(into.position() + m);
            source.position(source.position() + m);
            if (!process()) {
                return false;
            }
        }
        return true;
    }

    /** Processes what was read; returns false once the endpoint ended. */
    private boolean process() {
        while (ep.isReceiving()) {
            if (inHeader) {
                if (hdr.position() < 4 || hdr.position() < headerLength()) {
                    return true;
                }
                if (!startFpdu()) {
                    return false;
                }
            } else {
                updateCrc();
                if ((target != null && target.hasRemaining()) || (!terminate && trailer.hasRemaining())) {
                    return true;
                }
                if (!finishFpdu()) {
                    return false;
                }
            }
        }
        return false;
    }

    private int headerNeed() {
        return hdr.position() < 4 ? PREFIX : Math.max(PREFIX, headerLength());
    }

    /** The header length of the FPDU whose first 4 bytes are in {@link #hdr}. */
    private int headerLength() {
        if (Ddp.isTagged(Be.u8(hdr, Ddp.CONTROL))) {
            return Ddp.TAGGED_HEADER;
        }
        int op = Rdmap.opcode(Be.u8(hdr, Ddp.RDMAP_CONTROL));
        if (op == Rdmap.READ_REQUEST) {
            return Rdmap.READ_REQUEST_HEADER;
        }
        return op == Rdmap.TERMINATE ? Ddp.UNTAGGED_HEADER + 4 : Ddp.UNTAGGED_HEADER;
    }

    /** A complete header is in {@link #hdr}: check it, choose the target, take the bytes read past it. */
    private boolean startFpdu() {
        headerBytes = headerLength();
        int carry = hdr.position() - headerBytes;
        cur.clear();
        cur.put(0, hdr, 0, headerBytes);
        for (int i = 0; i < carry; i++) {
            carried[i] = hdr.get(headerBytes + i);
        }
        hdr.clear();
        target = null;
        terminate = false;
        int control = Be.u8(cur, Ddp.CONTROL);
        int rdmapControl = Be.u8(cur, Ddp.RDMAP_CONTROL);
        boolean tagged = Ddp.isTagged(control);
        if (Ddp.version(control) != Ddp.VERSION) {
            return fail(tagged ? TerminateError.DDP_TAGGED_VERSION : TerminateError.DDP_UNTAGGED_VERSION,
                    "DDP version " + Ddp.version(control) + " (RFC 5041 §4.1 requires 1)");
        }
        if (Rdmap.version(rdmapControl) != Rdmap.VERSION) {
            return fail(TerminateError.RDMAP_INVALID_VERSION,
                    "RDMAP version " + Rdmap.version(rdmapControl) + " (RFC 5040 §4.2 requires 1)");
        }
        opcode = Rdmap.opcode(rdmapControl);
        if (opcode > Rdmap.TERMINATE) {
            return fail(TerminateError.RDMAP_UNEXPECTED_OPCODE, "opcode " + opcode + " (RFC 5040 §4.2)");
        }
        if (Rdmap.isTaggedOpcode(opcode) != tagged) {
            return fail(TerminateError.RDMAP_UNEXPECTED_OPCODE, Rdmap.name(opcode) + " in a "
                    + (tagged ? "tagged" : "untagged") + " DDP segment (RFC 5040 §4.2)");
        }
        int ulpdu = Fpdu.ulpduLength(cur, 0);
        if (ulpdu + Fpdu.LENGTH_SIZE < headerBytes) {
            return fail(TerminateError.DDP_CATASTROPHIC, "ULPDU_Length " + ulpdu + " is shorter than the "
                    + Rdmap.name(opcode) + " header of " + (headerBytes - 2) + " bytes (RFC 5044 §4.1)");
        }
        payload = ulpdu + Fpdu.LENGTH_SIZE - headerBytes;
        pad = Fpdu.pad(ulpdu);
        peerFpdu = Math.max(peerFpdu, Fpdu.size(ulpdu));
        if (opcode == Rdmap.TERMINATE) {
            startTerminate();
        } else if (placement.start(opcode, payload, Ddp.isLast(control))) {
            target = placement.target();
        } else {
            return false;
        }
        trailer.clear().limit(pad + Fpdu.CRC_SIZE);
        if (crc != null) {
            crc.reset();
            Fpdu.update(crc, cur, 0, headerBytes);
        }
        crcMark = target == null ? 0 : target.position();
        for (int i = 0; i < carry; i++) {
            byte b = carried[i];
            if (target != null && target.hasRemaining()) {
                target.put(b);
            } else if (trailer.hasRemaining()) {
                trailer.put(b);
            }
        }
        inHeader = false;
        return true;
    }

    /** Terminate (RFC 5040 §4.8): read the control word and up to 64 bytes of copied headers, then end. */
    private void startTerminate() {
        terminate = true;
        if (payload > 0) {
            term.clear().limit(Math.min(payload, term.capacity()));
            target = term;
        }
    }

    private void updateCrc() {
        if (crc == null || target == null || terminate) {
            return;
        }
        int position = target.position();
        if (position > crcMark) {
            Fpdu.update(crc, target, crcMark, position - crcMark);
            crcMark = position;
        }
    }

    /** All bytes of the FPDU are in: check the CRC, then complete what the segment completes. */
    private boolean finishFpdu() {
        inHeader = true;
        fpdusReceived++;
        if (terminate) {
            term.flip();
            termination.peerTerminated(cur, term, orq);
            return false;
        }
        if (crc != null) {
            Fpdu.update(crc, trailer, 0, pad);
            int got = Fpdu.crcField(trailer, pad);
            int want = (int) crc.getValue();
            if (got != want) {
                return fail(TerminateError.MPA_CRC, Rdmap.name(opcode) + " FPDU CRC 0x" + Integer.toHexString(got)
                        + ", computed 0x" + Integer.toHexString(want) + " (RFC 5044 §6.1)");
            }
        }
        if (!placement.finish()) {
            return false;
        }
        if (!firstFpduSeen) {
            firstFpduSeen = true;
            ep.firstFpduReceived();
        }
        return true;
    }

    /**
     * Ends the connection with a Terminate for the FPDU whose header is in {@link #cur}, without a
     * copy of the header (the errors found here: framing, versions, opcode, CRC; the errors of a
     * segment's DDP and RDMAP checks copy it, {@link Placement}).
     */
    private boolean fail(TerminateError error, String detail) {
        termination.failReceive(error, detail, cur, 0, payload, false);
        return false;
    }
}
