package smbdirect.rdma.iwarp.internal.wireshark;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;

import smbdirect.impl.engine.TransportSettings;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.testsupport.Pdml;
import smbdirect.testsupport.Pdml.Field;
import smbdirect.testsupport.Pdml.Layer;
import smbdirect.testsupport.Pdml.Packet;

/**
 * Judges one {@link JudgedSession} by Wireshark's dissection of its capture: that every byte of the
 * TCP stream was dissected as MPA, that nothing is malformed or raises an expert warning, and that
 * every decoded field of MPA (RFC 5044 §7.1, §4.1, §6.1; RFC 6581 §5), DDP (RFC 5041 §4, §5),
 * RDMAP (RFC 5040 §4) and SMB Direct ([MS-SMBD] 2.2, 3.1.5) equals what the session sent and
 * negotiated. Problems are collected, not thrown, so that one run reports all of them.
 *
 * <p>Two dissections are judged. The first uses Wireshark's defaults, which reassemble DDP Sends
 * and SMB Direct fragments; Wireshark 4.0 reassembles wrongly when one TCP segment carries several
 * Sends (it chains them into one), so the SMB Direct layer is judged in the second, made with both
 * reassemblies off: there every Send's first DDP segment goes to {@code smb_direct} on its own.
 */
final class WireJudge {

    private static final int UNTAGGED_HEADER = 18;
    private static final int TAGGED_HEADER = 14;
    private static final int READ_REQUEST_BODY = 28;
    private static final int ENHANCED = 0x10;
    /** Expert warnings Wireshark 4.0 raises on every correct revision 2 MPA frame (iwarp.md §3.7). */
    private static final List<String> EXPECTED_WARNINGS = List.of("Res field is NOT set to zero",
            "Rev field is NOT set to one");

    private final JudgedSession s;
    private final List<String> problems = new ArrayList<>();

    private WireJudge(JudgedSession session) {
        this.s = session;
    }

    /** Everything wrong with {@code session} in the two dissections (empty when it is all right). */
    static List<String> judge(JudgedSession session, List<Packet> reassembled, List<Packet> segments) {
        WireJudge j = new WireJudge(session);
        j.wellFormed(reassembled, "default dissection");
        j.wellFormed(segments, "dissection without reassembly");
        j.stream(units(session, reassembled));
        j.smbDirect(units(session, segments));
        return j.problems;
    }

    private void problem(String text) {
        problems.add(s.name + ": " + text);
    }

    private void check(boolean ok, String text) {
        if (!ok) {
            problem(text);
        }
    }

    private void same(Object expected, Object actual, String what) {
        if (!expected.equals(actual)) {
            problem(what + ": expected " + expected + ", decoded " + actual);
        }
    }

    // ------------------------------------------------------------------ framing of the whole stream

    /** One FPDU or MPA frame as Wireshark dissected it, with the layers that followed it in its frame. */
    record Unit(int frame, boolean fromClient, Layer mpa, Layer ddp, Layer smbDirect, Field data) {

        long opcode() {
            return ddp.number("iwarp_rdma.opcode");
        }

        boolean last() {
            return ddp.field("iwarp_ddp.last_flag").flag();
        }

        long ulpdu() {
            return mpa.number("iwarp_mpa.ulpdulength");
        }
    }

    private boolean ours(Packet p) {
        Layer tcp = p.layer("tcp");
        return tcp != null && (tcp.number("tcp.srcport") == s.server.getPort()
                || tcp.number("tcp.dstport") == s.server.getPort());
    }

    private static List<Unit> units(JudgedSession session, List<Packet> packets) {
        List<Unit> units = new ArrayList<>();
        for (Packet p : packets) {
            Layer tcp = p.layer("tcp");
            if (tcp == null || tcp.number("tcp.srcport") != session.server.getPort()
                    && tcp.number("tcp.dstport") != session.server.getPort()) {
                continue;
            }
            boolean fromClient = tcp.number("tcp.dstport") == session.server.getPort();
            Layer mpa = null;
            Layer ddp = null;
            Layer smbd = null;
            Field data = null;
            for (Layer l : p.layers()) {
                switch (l.name()) {
                    case "iwarp_mpa" -> {
                        if (mpa != null) {
                            units.add(new Unit(p.number(), fromClient, mpa, ddp, smbd, data));
                        }
                        mpa = l;
                        ddp = null;
                        smbd = null;
                        data = null;
                    }
                    case "iwarp_ddp_rdmap" -> ddp = l;
                    case "smb_direct" -> smbd = l;
                    default -> {
                        if (mpa != null && l.has("data.data")) {
                            data = l.field("data.data");
                        }
                    }
                }
            }
            if (mpa != null) {
                units.add(new Unit(p.number(), fromClient, mpa, ddp, smbd, data));
            }
        }
        return units;
    }

    /** No malformed layer, no expert error, no expert warning but the two MPA 4.0 raises by design. */
    private void wellFormed(List<Packet> packets, String dissection) {
        long[] payload = new long[2];
        long[] dissected = new long[2];
        boolean[] fin = new boolean[2];
        for (Packet p : packets) {
            if (!ours(p)) {
                continue;
            }
            Layer tcp = p.layer("tcp");
            int dir = tcp.number("tcp.dstport") == s.server.getPort() ? 0 : 1;
            payload[dir] += tcp.number("tcp.len");
            fin[dir] |= tcp.field("tcp.flags.fin").flag();
            for (Layer l : p.layers()) {
                if (l.name().equals("_ws.malformed") || l.has("_ws.malformed")) {
                    problem(dissection + ", frame " + p.number() + ": malformed " + l.name());
                }
                if (l.name().equals("iwarp_mpa")) {
                    dissected[dir] += l.size();
                }
            }
            List<Field> severities = p.all("_ws.expert.severity");
            List<Field> messages = p.all("_ws.expert.message");
            for (int i = 0; i < severities.size(); i++) {
                long severity = severities.get(i).number();
                String message = i < messages.size() ? messages.get(i).show() : "?";
                boolean expected = EXPECTED_WARNINGS.stream().anyMatch(message::startsWith)
                        && severity < Pdml.SEVERITY_ERROR;
                if (severity >= Pdml.SEVERITY_WARN && !expected) {
                    problem(dissection + ", frame " + p.number() + ": expert item " + message);
                }
            }
        }
        // every byte of both directions was dissected as an MPA frame or FPDU
        same(payload[0], dissected[0], dissection + ": client-to-server TCP payload bytes dissected as MPA");
        same(payload[1], dissected[1], dissection + ": server-to-client TCP payload bytes dissected as MPA");
        check(fin[0] && fin[1], dissection + ": both FINs captured (the capture is complete)");
    }

    // ------------------------------------------------------------------ MPA, DDP, RDMAP

    private void stream(List<Unit> units) {
        List<Unit> c2s = units.stream().filter(Unit::fromClient).toList();
        List<Unit> s2c = units.stream().filter(u -> !u.fromClient()).toList();
        boolean request = !c2s.isEmpty() && c2s.get(0).mpa().has("iwarp_mpa.key.req");
        boolean reply = !s2c.isEmpty() && s2c.get(0).mpa().has("iwarp_mpa.key.rep");
        check(request, "the client's first frame is an MPA Request");
        check(reply, "the server's first frame is an MPA Reply");
        if (!request || !reply) {
            return;
        }
        int clientIrd = Math.min(s.clientEngine.inboundReadDepth(), s.clientProvider.maxReadDepth());
        int clientOrd = Math.min(s.clientEngine.outboundReadDepth(), s.clientProvider.maxReadDepth());
        mpaFrame(c2s.get(0).mpa(), "MPA Request", s.clientProvider.crc(), clientIrd, clientOrd, clientIrd, clientOrd);
        int serverIrd = Math.min(Math.min(s.serverEngine.inboundReadDepth(), s.serverProvider.maxReadDepth()), clientOrd);
        int serverOrd = Math.min(Math.min(s.serverEngine.outboundReadDepth(), s.serverProvider.maxReadDepth()), clientIrd);
        boolean crc = s.clientProvider.crc() || s.serverProvider.crc();
        mpaFrame(s2c.get(0).mpa(), "MPA Reply", crc, serverIrd, serverOrd, serverIrd, serverOrd);
        same(serverIrd, s.serverParameters.inboundReadDepth(), "the server's IRD (Reply) as the engine reports it");
        same(serverOrd, s.serverParameters.outboundReadDepth(), "the server's ORD (Reply) as the engine reports it");
        // the client's IRD in effect is its device's: what its Request advertised (RFC 6581 lets the
        // responder's ORD only raise it, and serverOrd is at most clientIrd), which the engine reports
        same(Math.max(clientIrd, serverOrd), s.clientParameters.inboundReadDepth(),
                "the client's IRD after the Reply (the one its device holds)");
        same(serverIrd, s.clientParameters.outboundReadDepth(), "the client's ORD after the Reply");

        fpdus(c2s.subList(1, c2s.size()), crc, fpduLimit(s.clientProvider), "client");
        fpdus(s2c.subList(1, s2c.size()), crc, fpduLimit(s.serverProvider), "server");
        sends(c2s.subList(1, c2s.size()), "client");
        sends(s2c.subList(1, s2c.size()), "server");
        rdma(c2s.subList(1, c2s.size()), s2c.subList(1, s2c.size()));
    }

    /** RFC 5044 §7.1 and RFC 6581 §5: flags, revision, the IRD/ORD word and the [MS-SMBD] 6.1 header after it. */
    private void mpaFrame(Layer mpa, String what, boolean crc, int wordIrd, int wordOrd, int headerIrd, int headerOrd) {
        same(crc, mpa.field("iwarp_mpa.crc_flag").flag(), what + " C flag");
        same(false, mpa.field("iwarp_mpa.marker_flag").flag(), what + " M flag");
        same(false, mpa.field("iwarp_mpa.rej_flag").flag(), what + " R flag");
        same((long) ENHANCED, mpa.number("iwarp_mpa.res"), what + " reserved bits (the RFC 6581 enhanced bit)");
        same(2L, mpa.number("iwarp_mpa.rev"), what + " revision");
        same(12L, mpa.number("iwarp_mpa.pdlength"), what + " PD_Length");
        byte[] expected = ByteBuffer.allocate(12).putShort((short) wordIrd).putShort((short) wordOrd).putInt(headerIrd)
                .putInt(headerOrd).array();
        same(HexFormat.of().formatHex(expected), mpa.field("iwarp_mpa.privatedata").value(),
                what + " private data (RFC 6581 word IRD " + wordIrd + " ORD " + wordOrd + ", [MS-SMBD] 6.1 header)");
    }

    /** RFC 5044 §4.1, §6.1: every FPDU's CRC (good, or zero when off), its size, DDP and RDMAP versions. */
    private void fpdus(List<Unit> units, boolean crc, int maxFpdu, String side) {
        for (Unit u : units) {
            String at = side + " frame " + u.frame() + ": ";
            if (u.ddp() == null) {
                problem(at + "an FPDU without a DDP/RDMAP layer");
                continue;
            }
            if (crc) {
                Field c = u.mpa().field("iwarp_mpa.crc_check");
                check(c != null && c.showname().contains("(Good CRC32)"), at + "CRC " + (c == null ? "missing" : c.showname()));
            } else {
                Field c = u.mpa().field("iwarp_mpa.crc");
                check(c != null && c.number() == 0 && !u.mpa().has("iwarp_mpa.crc_check"),
                        at + "CRC off, but the CRC field is " + (c == null ? "missing" : c.show()));
            }
            check(u.mpa().size() <= maxFpdu, at + "FPDU of " + u.mpa().size() + " bytes exceeds maxFpduSize " + maxFpdu);
            same((long) ((-(u.ulpdu() + 2)) & 3), (long) Math.max(0, u.mpa().size() - 6 - u.ulpdu()),
                    at + "PAD bytes");
            same(1L, u.ddp().number("iwarp_ddp.dv"), at + "DDP version");
            same(1L, u.ddp().number("iwarp_rdma.version"), at + "RDMAP version");
            same(0L, u.ddp().number("iwarp_ddp.rsvd"), at + "DDP reserved bits");
            check(u.opcode() != 7, at + "a Terminate: " + u.ddp().fields());
        }
    }

    /** RFC 5041 §5.1, §5.3: Sends on QN 0, MSN from 1 up by one per message, MO the bytes before, L on the last. */
    private void sends(List<Unit> units, String side) {
        long msn = 0;
        long mo = 0;
        boolean inMessage = false;
        for (Unit u : units) {
            long op = u.opcode();
            if (op != 3 && op != 4) {
                continue;
            }
            String at = side + " frame " + u.frame() + ": Send ";
            long expectedMsn = inMessage ? msn : msn + 1;
            same(0L, u.ddp().number("iwarp_ddp.qn"), at + "QN");
            same(expectedMsn, u.ddp().number("iwarp_ddp.msn"), at + "MSN");
            same(inMessage ? mo : 0L, u.ddp().number("iwarp_ddp.mo"), at + "MO");
            msn = expectedMsn;
            mo = (inMessage ? mo : 0) + u.ulpdu() - UNTAGGED_HEADER;
            inMessage = !u.last();
            if (op == 4) {
                same(Integer.toUnsignedLong(s.advertised.token()), u.ddp().number("iwarp_rdma.inval_stag"),
                        at + "with Invalidate: the STag the client advertised");
                same(false, u.fromClient(), at + "with Invalidate from the client");
            }
        }
        check(!inMessage, side + ": the last Send ended with L=1");
    }

    /**
     * RFC 5040 §4.4, §4.5, §5.4: the server's Read Requests name the advertised STag and Tagged
     * Offset for the whole size on QN 1 with MSNs from 1; the client's Read Responses go to the
     * Read Request's sink, contiguous, L on the last; the server's RDMA Writes go to the advertised
     * STag right after the read half, contiguous, the whole size.
     */
    private void rdma(List<Unit> c2s, List<Unit> s2c) {
        record Read(long sinkStag, long sinkTo, long size, int frame) {
        }
        Deque<Read> outstanding = new ArrayDeque<>();
        long readMsn = 0;
        long requested = 0;
        long written = 0;
        long writeSegmentsEnded = 0;
        List<Unit> serverOrdered = new ArrayList<>(s2c);
        for (Unit u : serverOrdered) {
            String at = "server frame " + u.frame() + ": ";
            if (u.opcode() == 1) {
                readMsn++;
                same(1L, u.ddp().number("iwarp_ddp.qn"), at + "Read Request QN");
                same(readMsn, u.ddp().number("iwarp_ddp.msn"), at + "Read Request MSN");
                same(0L, u.ddp().number("iwarp_ddp.mo"), at + "Read Request MO");
                same(true, u.last(), at + "Read Request L");
                same((long) (UNTAGGED_HEADER + READ_REQUEST_BODY), u.ulpdu(), at + "Read Request ULPDU_Length");
                same(Integer.toUnsignedLong(s.advertised.token()), u.ddp().number("iwarp_rdma.srcstag"),
                        at + "Read Request source STag (the client's advertised token)");
                same(s.advertised.offset() + requested, u.ddp().number("iwarp_rdma.srcto"),
                        at + "Read Request source TO (the client's advertised offset)");
                long size = u.ddp().number("iwarp_rdma.rdmardsz");
                requested += size;
                outstanding.add(new Read(u.ddp().number("iwarp_rdma.sinkstag"), u.ddp().number("iwarp_rdma.sinkto"),
                        size, u.frame()));
            } else if (u.opcode() == 0) {
                same(Integer.toUnsignedLong(s.advertised.token()), u.ddp().number("iwarp_ddp.stag"),
                        at + "RDMA Write STag (the client's advertised token)");
                same(s.advertised.offset() + s.rdmaSize + written, u.ddp().number("iwarp_ddp.tagged_offset"),
                        at + "RDMA Write TO (advertised offset + " + s.rdmaSize + " + bytes written before)");
                written += u.ulpdu() - TAGGED_HEADER;
                if (u.last()) {
                    writeSegmentsEnded++;
                }
            } else if (u.opcode() == 2) {
                problem(at + "a Read Response from the server, which read nothing of it");
            }
        }
        same((long) s.rdmaSize, requested, "bytes the server's Read Requests asked for");
        same((long) s.rdmaSize, written, "bytes the server's RDMA Writes carried");
        check(writeSegmentsEnded >= 1, "the server's RDMA Write ended with L=1");
        check(readMsn >= 1, "the server sent a Read Request");

        long received = 0;
        for (Unit u : c2s) {
            String at = "client frame " + u.frame() + ": ";
            if (u.opcode() == 0 || u.opcode() == 1) {
                problem(at + "the client sent " + (u.opcode() == 0 ? "an RDMA Write" : "a Read Request"));
            }
            if (u.opcode() != 2) {
                continue;
            }
            Read r = outstanding.peek();
            if (r == null) {
                problem(at + "a Read Response without an outstanding Read Request");
                continue;
            }
            same(r.sinkStag(), u.ddp().number("iwarp_ddp.stag"), at + "Read Response STag (the sink of frame " + r.frame() + ")");
            same(r.sinkTo() + received, u.ddp().number("iwarp_ddp.tagged_offset"), at + "Read Response TO");
            received += u.ulpdu() - TAGGED_HEADER;
            check(received <= r.size(), at + "Read Response beyond the " + r.size() + " bytes asked for");
            same(received == r.size(), u.last(), at + "Read Response L exactly on the last segment");
            if (u.last()) {
                outstanding.poll();
                received = 0;
            }
        }
        check(outstanding.isEmpty(), "every Read Request was answered: " + outstanding);
    }

    // ------------------------------------------------------------------ SMB Direct

    /**
     * [MS-SMBD] 2.2.1, 2.2.2, 2.2.3 against the settings, per direction: the Negotiate Request and
     * Response fields, then every Data Transfer message's header, the upper-layer messages they
     * carry (sizes in order, bytes where Wireshark shows a whole fragment).
     */
    private void smbDirect(List<Unit> units) {
        List<Unit> c2s = units.stream().filter(u -> u.fromClient() && u.ddp() != null).toList();
        List<Unit> s2c = units.stream().filter(u -> !u.fromClient() && u.ddp() != null).toList();
        List<Message> clientMessages = messages(c2s, "client");
        List<Message> serverMessages = messages(s2c, "server");
        if (clientMessages.isEmpty() || serverMessages.isEmpty()) {
            problem("no SMB Direct message decoded in one direction");
            return;
        }
        TransportSettings c = s.clientEngine;
        TransportSettings v = s.serverEngine;
        Layer request = clientMessages.get(0).first().smbDirect();
        check(request.has("smb_direct.negotiate_request"), "the client's first Send is a Negotiate Request");
        same(0x100L, request.number("smb_direct.version.min"), "Negotiate Request MinVersion");
        same(0x100L, request.number("smb_direct.version.max"), "Negotiate Request MaxVersion");
        same((long) c.sendCreditTarget(), request.number("smb_direct.credits.requested"), "Negotiate Request CreditsRequested");
        same((long) c.maxSendSize(), request.number("smb_direct.preferred_send_size"), "Negotiate Request PreferredSendSize");
        same((long) c.maxReceiveSize(), request.number("smb_direct.max_receive_size"), "Negotiate Request MaxReceiveSize");
        same((long) c.maxFragmentedRecvSize(), request.number("smb_direct.max_fragmented_size"),
                "Negotiate Request MaxFragmentedSize");

        Layer response = serverMessages.get(0).first().smbDirect();
        check(response.has("smb_direct.negotiate_response"), "the server's first Send is a Negotiate Response");
        long serverSend = Math.min(v.maxSendSize(), c.maxReceiveSize()); // 3.1.5.6: R-3.1.5.6-14
        long serverReceive = Math.max(128, Math.min(v.maxReceiveSize(), c.maxSendSize())); // R-3.1.5.6-10, -11
        same(0x100L, response.number("smb_direct.version.min"), "Negotiate Response MinVersion");
        same(0x100L, response.number("smb_direct.version.max"), "Negotiate Response MaxVersion");
        same(0x100L, response.number("smb_direct.version.negotiated"), "Negotiate Response NegotiatedVersion");
        same(0L, response.number("smb_direct.status"), "Negotiate Response Status");
        same((long) v.sendCreditTarget(), response.number("smb_direct.credits.requested"), "Negotiate Response CreditsRequested");
        long granted = response.number("smb_direct.credits.granted");
        check(granted >= 1 && granted <= c.sendCreditTarget(), "Negotiate Response CreditsGranted " + granted);
        same((long) v.maxReadWriteSize(), response.number("smb_direct.max_read_write_size"), "Negotiate Response MaxReadWriteSize");
        same(serverSend, response.number("smb_direct.preferred_send_size"), "Negotiate Response PreferredSendSize");
        same(serverReceive, response.number("smb_direct.max_receive_size"), "Negotiate Response MaxReceiveSize");
        same((long) v.maxFragmentedRecvSize(), response.number("smb_direct.max_fragmented_size"),
                "Negotiate Response MaxFragmentedSize");
        same((int) serverSend, s.serverParameters.maxSendSize(), "the server's MaxSendSize as the engine reports it");
        same((int) serverReceive, s.serverParameters.maxReceiveSize(), "the server's MaxReceiveSize as the engine reports it");

        long clientSend = Math.min(c.maxSendSize(), serverReceive);
        dataMessages(clientMessages.subList(1, clientMessages.size()), s.clientSent, c.sendCreditTarget(), clientSend,
                "client");
        dataMessages(serverMessages.subList(1, serverMessages.size()), s.serverSent, v.sendCreditTarget(), serverSend,
                "server");
    }

    /** One Send message: its first DDP segment (with the SMB Direct layer) and its size in bytes. */
    private record Message(Unit first, long bytes) {
    }

    /** Every Send message; the first segment of each must carry a decoded SMB Direct layer. */
    private List<Message> messages(List<Unit> units, String side) {
        List<Message> messages = new ArrayList<>();
        Unit first = null;
        long bytes = 0;
        for (Unit u : units) {
            long op = u.opcode();
            if (op != 3 && op != 4) {
                continue;
            }
            if (first == null) {
                first = u;
                bytes = 0;
            }
            bytes += u.ulpdu() - UNTAGGED_HEADER;
            if (u.last()) {
                if (first.smbDirect() == null) {
                    problem(side + " frame " + first.frame() + ": a Send that Wireshark did not decode as SMB Direct");
                } else {
                    messages.add(new Message(first, bytes));
                }
                first = null;
            }
        }
        return messages;
    }

    /** [MS-SMBD] 2.2.3: header fields, the fragments of each upper-layer message, and its bytes. */
    private void dataMessages(List<Message> messages, List<byte[]> sent, int creditsRequested, long maxSend,
            String side) {
        List<Integer> sizesDecoded = new ArrayList<>();
        int message = 0;
        long remainingBefore = -1;
        long offsetInMessage = 0;
        for (Message m : messages) {
            Unit u = m.first();
            Layer d = u.smbDirect();
            String at = side + " frame " + u.frame() + ": Data Transfer ";
            if (!d.has("smb_direct.data_message")) {
                problem(at + "is not a Data Transfer message: " + d.fields());
                continue;
            }
            long length = d.number("smb_direct.data_length");
            long offset = d.number("smb_direct.data_offset");
            long remaining = d.number("smb_direct.remaining_length");
            long ddpBytes = m.bytes();
            same((long) creditsRequested, d.number("smb_direct.credits.requested"), at + "CreditsRequested");
            if (length == 0) {
                same(0L, offset, at + "DataOffset of an empty message");
                same(0L, remaining, at + "RemainingDataLength of an empty message");
                same(20L, ddpBytes, at + "size of an empty message");
                continue;
            }
            same(24L, offset, at + "DataOffset");
            same(offset + length, ddpBytes, at + "DataOffset + DataLength = the Send's size");
            check(ddpBytes <= maxSend, at + "of " + ddpBytes + " bytes exceeds MaxSendSize " + maxSend);
            if (remainingBefore < 0) {
                offsetInMessage = 0;
            } else {
                same(remainingBefore, remaining + length, at + "RemainingDataLength continues the previous fragment's");
            }
            if (message < sent.size() && u.data() != null && u.data().bytes().length == length) {
                byte[] original = sent.get(message);
                byte[] decoded = u.data().bytes();
                byte[] expected = Arrays.copyOfRange(original, (int) Math.min(offsetInMessage, original.length),
                        (int) Math.min(offsetInMessage + length, original.length));
                check(Arrays.equals(expected, decoded), at + "payload bytes differ from the upper-layer message "
                        + message + " at offset " + offsetInMessage);
            }
            offsetInMessage += length;
            if (remaining == 0) {
                sizesDecoded.add((int) offsetInMessage);
                message++;
                remainingBefore = -1;
            } else {
                remainingBefore = remaining;
            }
        }
        List<Integer> sizesSent = sent.stream().map(b -> b.length).toList();
        same(sizesSent, sizesDecoded, side + ": the sizes of the upper-layer messages, in order");
    }

    /**
     * The largest FPDU a provider with these settings sends on loopback: the configured size, or for
     * 0 the loopback MSS as siw's ({@code siw_update_tcpseg}): the MTU less IPv4, TCP and timestamp
     * headers, rounded down to 8.
     */
    private static int fpduLimit(IwarpSettings settings) {
        if (settings.maxFpduSize() != IwarpSettings.FPDU_SIZE_OF_PATH) {
            return settings.maxFpduSize();
        }
        try {
            int mtu = java.net.NetworkInterface.getByInetAddress(java.net.InetAddress.getLoopbackAddress()).getMTU();
            return Math.min(65536, (mtu - 52) & ~7);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("the loopback interface's MTU: " + e, e);
        }
    }
}
