package smbdirect.rdma.iwarp.internal.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.internal.wire.Hex;

/**
 * RDMA mode against a hand-driven initiator with CRC on: placement, segmentation and reassembly,
 * the receive-side checks and the Terminate each failure sends (RFC 5040 §4.8, §7; RFC 5041 §5, §7;
 * RFC 5044 §4, §6; iwarp.md §3.6, §4.4, §5.5–5.7, §6.2, §7).
 */
class RdmaModeTest {

    private Rig rig;
    private RawPeer peer;
    private Rig.Side side;

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
        if (rig != null) {
            rig.close();
        }
        if (side != null) {
            assertEquals(0, side.events.callbacksAfterDisconnect(), "callbacks after onDisconnected");
        }
    }

    /** Our provider accepts the raw initiator (IRD/ORD 4) with {@code receives} receives of {@code size} bytes. */
    private Rig.Side established(IwarpSettings settings, int receives, int size) throws Exception {
        return established(settings, receives, size, new EndpointSettings(16, 16));
    }

    private Rig.Side established(IwarpSettings settings, int receives, int size, EndpointSettings config)
            throws Exception {
        rig = new Rig(settings);
        peer = RawPeer.connect(rig.listen());
        peer.crc = true;
        peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x50, 2, RawPeer.word(4, 4)));
        side = rig.accept(receives, size, Rig.params(4, 4), config);
        peer.readFrame();
        side.events.awaitEstablished();
        return side;
    }

    private Rig.Side established(int receives, int size) throws Exception {
        return established(IwarpSettings.defaults(), receives, size);
    }

    private MemoryRegion region(int size, MemoryAccess... access) throws Exception {
        EnumSet<MemoryAccess> set = EnumSet.noneOf(MemoryAccess.class);
        for (MemoryAccess a : access) {
            set.add(a);
        }
        return side.endpoint.register(ByteBuffer.allocateDirect(size), set);
    }

    /** Reads the Terminate the provider sends and checks that the connection then ends. */
    private byte[] terminate() throws Exception {
        byte[] t = peer.readFpdu();
        assertEquals("41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00", Hex.of(ByteBuffer.wrap(t), 0, 18),
                "Terminate: untagged, L, opcode 7, QN 2, MSN 1, MO 0");
        assertTrue(peer.closedByPeer(), "the connection ends after the Terminate");
        assertEquals(DisconnectCause.QP_ERROR, side.events.awaitDisconnected());
        return t;
    }

    private static String control(byte[] terminate) {
        return Hex.of(ByteBuffer.wrap(terminate), 18, 4);
    }

    // ------------------------------------------------------------------ Sends

    @Test
    void rfc5041_5_3_sendOfTheVerifiedExamplePlacesIntoTheReceive() throws Exception {
        established(1, 64);
        peer.sendHex("00 16 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 01 02 03 04 b4 e2 b5 29");
        Events.Completion c = side.events.awaitCompletions(1).get(0);
        assertEquals(new Events.Completion(0, WorkRequestType.RECEIVE, CompletionStatus.SUCCESS, 4, false, 0), c);
        assertArrayEquals(new byte[] {1, 2, 3, 4}, side.received(0, 4));
    }

    @Test
    void rfc5041_5_3_aMessageInThreeSegmentsSentByteByByteIsReassembled() throws Exception {
        established(1, 4096);
        byte[] message = new byte[3000];
        new Random(5041).nextBytes(message);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int mo = 0; mo < 3000; mo += 1000) {
            wire.writeBytes(peer.fpdu(RawPeer.send(1, mo, mo == 2000, java.util.Arrays.copyOfRange(message, mo, mo + 1000))));
        }
        peer.sendByteByByte(wire.toByteArray());
        Events.Completion c = side.events.awaitCompletions(1).get(0);
        assertEquals(CompletionStatus.SUCCESS, c.status());
        assertEquals(3000, c.bytes());
        assertArrayEquals(message, side.received(0, 3000));
    }

    @Test
    void rfc5044_4_manyFpdusInOneWriteAreEachDeliveredInOrder() throws Exception {
        established(16, 32);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < 16; i++) {
            byte[] payload = new byte[i % 5];
            java.util.Arrays.fill(payload, (byte) i);
            wire.writeBytes(peer.fpdu(RawPeer.send(i + 1, 0, true, payload)));
        }
        peer.send(wire.toByteArray());
        List<Events.Completion> cs = side.events.awaitCompletions(16);
        for (int i = 0; i < 16; i++) {
            assertEquals(i, cs.get(i).wrId());
            assertEquals(i % 5, cs.get(i).bytes());
            if (i % 5 > 0) {
                assertEquals(i, side.received(i, 1)[0]);
            }
        }
    }

    @Test
    void rfc5040_4_3_allFourSendOpcodesAreAccepted() throws Exception {
        established(4, 16);
        MemoryRegion exposed = region(8, MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE);
        peer.send(peer.fpdu(RawPeer.untagged(0x41, 0x43, 0, 0, 1, 0, new byte[] {1})));
        peer.send(peer.fpdu(RawPeer.untagged(0x41, 0x45, 0, 0, 2, 0, new byte[] {2})));
        peer.send(peer.fpdu(RawPeer.untagged(0x41, 0x46, exposed.token(), 0, 3, 0, new byte[] {3})));
        List<Events.Completion> cs = side.events.awaitCompletions(3);
        assertTrue(cs.stream().allMatch(c -> c.status() == CompletionStatus.SUCCESS), cs.toString());
        assertFalse(cs.get(1).invalidated(), "Send with SE invalidates nothing");
        assertTrue(cs.get(2).invalidated(), "Send with SE and Invalidate");
        assertEquals(exposed.token(), cs.get(2).token());
        assertFalse(exposed.isValid());
    }

    @Test
    void rfc5040_5_1_sendWithInvalidateInvalidatesAndALaterWriteToItIsTerminated() throws Exception {
        established(1, 16);
        MemoryRegion exposed = region(8, MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE);
        peer.send(peer.fpdu(RawPeer.untagged(0x41, 0x44, exposed.token(), 0, 1, 0, new byte[] {7})));
        Events.Completion c = side.events.awaitCompletions(1).get(0);
        assertTrue(c.invalidated());
        assertEquals(exposed.token(), c.token());
        peer.send(peer.fpdu(RawPeer.tagged(0xC1, 0x40, exposed.token(), exposed.address(), new byte[] {1})));
        assertEquals("11 00 c0 00", control(terminate()), "DDP / Tagged / Invalid STag, M D");
        assertEquals(0, exposed.buffer().get(0), "nothing placed");
    }

    @Test
    void rfc5040_6_sendWithInvalidateOfAnUnknownStagIsTerminated() throws Exception {
        established(1, 16);
        MemoryRegion exposed = region(8, MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE);
        peer.send(peer.fpdu(RawPeer.untagged(0x41, 0x44, exposed.token() ^ 0x100, 0, 1, 0, new byte[] {7})));
        byte[] t = terminate();
        assertEquals("02 09 c0 00", control(t), "RDMAP / Remote Operation / 0x09 STag cannot be Invalidated");
        assertTrue(exposed.isValid());
        assertEquals(CompletionStatus.REMOTE_INVALID_REQUEST, side.events.completions().get(0).status());
    }

    @Test
    void rfc5041_7_2_sendWithoutPostedReceiveSendsTheVerifiedNoBufferTerminate() throws Exception {
        established(1, 16);
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[] {1, 2, 3, 4})));
        side.events.awaitCompletions(1);
        peer.send(peer.fpdu(RawPeer.send(2, 0, true, new byte[] {1, 2, 3, 4})));
        byte[] t = terminate();
        // iwarp.md §5.5, verified with tshark: the whole Terminate, byte for byte
        assertEquals("41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 12 02 c0 00"
                + " 00 04 41 43 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00", Hex.of(ByteBuffer.wrap(t), 0, 42));
        assertTrue(side.events.detail().contains("Invalid MSN - no buffer available"), side.events.detail());
        assertEquals(1, rig.provider.statistics().terminatesSent());
    }

    @Test
    void rfc5041_7_2_sendLongerThanTheReceiveIsTooLongAndALengthErrorLocally() throws Exception {
        established(1, 8);
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[9])));
        assertEquals("12 05 c0 00", control(terminate()), "DDP / Untagged / 0x05 message too long");
        assertEquals(CompletionStatus.LOCAL_LENGTH_ERROR, side.events.completions().get(0).status());
    }

    @Test
    void rfc5041_5_3_wrongMsnIsAnInvalidMsnRange() throws Exception {
        established(1, 16);
        peer.send(peer.fpdu(RawPeer.send(2, 0, true, new byte[1])));
        assertEquals("12 03 c0 00", control(terminate()));
        assertEquals(CompletionStatus.FLUSHED, side.events.completions().get(0).status());
    }

    @Test
    void rfc5041_5_3_wrongQnIsAnInvalidQn() throws Exception {
        established(1, 16);
        peer.send(peer.fpdu(RawPeer.untagged(0x41, 0x43, 0, 5, 1, 0, new byte[1])));
        assertEquals("12 01 c0 00", control(terminate()));
    }

    @Test
    void rfc5041_5_3_wrongMoIsAnInvalidMo() throws Exception {
        established(1, 16);
        peer.send(peer.fpdu(RawPeer.send(1, 0, false, new byte[4])));
        peer.send(peer.fpdu(RawPeer.send(1, 5, true, new byte[4])));
        assertEquals("12 04 c0 00", control(terminate()));
    }

    @Test
    void rfc5041_4_1_unknownDdpVersionIsTerminatedWithoutCopy() throws Exception {
        established(1, 16);
        peer.send(peer.fpdu(RawPeer.untagged(0x42, 0x43, 0, 0, 1, 0, new byte[1])));
        byte[] t = terminate();
        assertEquals("12 06 00 00", control(t), "DDP / Untagged / 0x06, nothing copied");
        assertEquals(22, t.length);
    }

    @Test
    void rfc5040_4_2_unknownRdmapVersionAndOpcodeAreRemoteOperationErrors() throws Exception {
        established(1, 16);
        peer.send(peer.fpdu(RawPeer.untagged(0x41, 0x83, 0, 0, 1, 0, new byte[1])));
        assertEquals("02 05 00 00", control(terminate()), "RDMAP / Remote Operation / 0x05");
    }

    @Test
    void rfc5040_4_2_opcodeAboveSevenIsUnexpected() throws Exception {
        established(1, 16);
        peer.send(peer.fpdu(RawPeer.untagged(0x41, 0x48, 0, 0, 1, 0, new byte[1])));
        assertEquals("02 06 00 00", control(terminate()));
    }

    @Test
    void aSendInATaggedSegmentIsAnUnexpectedOpcode() throws Exception {
        established(1, 16);
        peer.send(peer.fpdu(RawPeer.tagged(0xC1, 0x43, 1, 0, new byte[1])));
        assertEquals("02 06 00 00", control(terminate()));
    }

    @Test
    void rfc5044_6_1_badCrcIsAnLlpCrcError() throws Exception {
        established(1, 16);
        byte[] f = peer.fpdu(RawPeer.send(1, 0, true, new byte[] {1, 2, 3, 4}));
        f[f.length - 1] ^= 1;
        peer.send(f);
        byte[] t = terminate();
        assertEquals("20 02 00 00", control(t), "LLP / MPA / CRC error, nothing copied");
        assertTrue(side.events.detail().contains("CRC"), side.events.detail());
    }

    // ------------------------------------------------------------------ RDMA Write

    @Test
    void rfc5041_5_2_writeInSegmentsPlacesAtTheTaggedOffsets() throws Exception {
        established(1, 16);
        MemoryRegion target = region(4096, MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE);
        byte[] data = new byte[3000];
        new Random(1).nextBytes(data);
        long to = target.address() + 100;
        peer.send(RawPeer.concat(
                peer.fpdu(RawPeer.tagged(0x81, 0x40, target.token(), to, java.util.Arrays.copyOfRange(data, 0, 1500))),
                peer.fpdu(RawPeer.tagged(0xC1, 0x40, target.token(), to + 1500,
                        java.util.Arrays.copyOfRange(data, 1500, 3000))),
                peer.fpdu(RawPeer.send(1, 0, true, new byte[] {1}))));
        side.events.awaitCompletions(1);
        byte[] placed = new byte[3000];
        target.buffer().get(100, placed);
        assertArrayEquals(data, placed);
        assertEquals(0, target.buffer().get(99));
        assertEquals(0, target.buffer().get(3100));
        assertTrue(side.events.completions().size() == 1, "a Write completes nothing at the target");
    }

    @Test
    void iwarp_7_zeroLengthWriteNamesNoMemory() throws Exception {
        established(1, 16);
        peer.sendHex("00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00 eb d3 4c 5f");
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[] {1})));
        assertEquals(CompletionStatus.SUCCESS, side.events.awaitCompletions(1).get(0).status());
    }

    @Test
    void rfc5042_writeWithAStaleKeyIsAnInvalidStagAndCopiesTheTaggedHeader() throws Exception {
        established(1, 16);
        MemoryRegion target = region(64, MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE);
        int stale = target.token() ^ 1;
        peer.send(peer.fpdu(RawPeer.tagged(0xC1, 0x40, stale, target.address(), new byte[8])));
        byte[] t = terminate();
        assertEquals("11 00 c0 00", control(t), "DDP / Tagged / Invalid STag, M D");
        ByteBuffer b = ByteBuffer.wrap(t);
        assertEquals(8, b.getShort(22), "DDP Segment Length (the payload length, as siw)");
        assertEquals(stale, b.getInt(26), "the copied tagged header names the STag");
    }

    @Test
    void rfc5042_writeWithoutRemoteWriteIsReportedAsInvalidStagAsSiwDoes() throws Exception {
        established(1, 16);
        MemoryRegion target = region(64, MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ);
        peer.send(peer.fpdu(RawPeer.tagged(0xC1, 0x40, target.token(), target.address(), new byte[8])));
        assertEquals("11 00 c0 00", control(terminate()));
        assertEquals(0, target.buffer().get(0));
    }

    @Test
    void rfc5041_7_2_writePastTheRegionIsABoundsViolationAndPlacesNothing() throws Exception {
        established(1, 16);
        MemoryRegion target = region(16, MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE);
        byte[] data = new byte[8];
        java.util.Arrays.fill(data, (byte) 5);
        peer.send(peer.fpdu(RawPeer.tagged(0xC1, 0x40, target.token(), target.address() + 9, data)));
        assertEquals("11 01 c0 00", control(terminate()));
        byte[] all = new byte[16];
        target.buffer().get(0, all);
        assertArrayEquals(new byte[16], all);
    }

    @Test
    void rfc5041_7_2_aWriteWhoseTaggedOffsetWrapsIsATaggedOffsetWrap() throws Exception {
        established(1, 16);
        MemoryRegion target = region(16, MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE);
        peer.send(peer.fpdu(RawPeer.tagged(0xC1, 0x40, target.token(), -4L, new byte[8])));
        assertEquals("11 03 c0 00", control(terminate()), "TO wrap");
    }

    // ------------------------------------------------------------------ RDMA Read (we respond)

    @Test
    void rfc5040_4_4_readRequestIsAnsweredWithResponseSegmentsOfTheConfiguredSize() throws Exception {
        established(IwarpSettings.builder().maxFpduSize(1460).build(), 1, 16);
        MemoryRegion source = region(5000, MemoryAccess.REMOTE_READ);
        byte[] data = new byte[5000];
        new Random(2).nextBytes(data);
        source.buffer().put(0, data);
        peer.send(peer.fpdu(RawPeer.readRequest(1, 0xbeef, 0x7000, 4000, source.token(), source.address() + 1000)));
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        long to = 0x7000;
        while (got.size() < 4000) {
            byte[] f = peer.readFpdu();
            assertTrue(f.length + 6 <= 1460, "FPDU of " + (f.length + 6) + " bytes exceeds maxFpduSize 1460");
            ByteBuffer b = ByteBuffer.wrap(f);
            assertEquals(0x42, f[1] & 0xFF, "Read Response");
            assertEquals(0xbeef, b.getInt(2), "sink STag");
            assertEquals(to, b.getLong(6), "sink TO advances with the data");
            got.write(f, 14, f.length - 14);
            to += f.length - 14;
            assertEquals(got.size() == 4000, (f[0] & 0x40) != 0, "L only on the last segment");
        }
        assertArrayEquals(java.util.Arrays.copyOfRange(data, 1000, 5000), got.toByteArray());
    }

    @Test
    void rfc5040_7_2_readRequestForAnUnknownStagIsAProtectionErrorCopyingTheRequest() throws Exception {
        established(1, 16);
        MemoryRegion source = region(64, MemoryAccess.REMOTE_READ);
        peer.send(peer.fpdu(RawPeer.readRequest(1, 0xbeef, 0, 8, source.token() + 0x100, source.address())));
        byte[] t = terminate();
        assertEquals("01 00 e0 00", control(t), "RDMAP / Remote Protection / Invalid STag, M D R");
        assertEquals(22 + 2 + 46, t.length, "DDP Segment Length + the 46-byte Read Request");
        assertEquals(0xbeef, ByteBuffer.wrap(t).getInt(24 + 18), "the copied request's sink STag");
    }

    @Test
    void rfc5040_7_2_readRequestWithoutRemoteReadIsAnAccessRightsViolation() throws Exception {
        established(1, 16);
        MemoryRegion source = region(64, MemoryAccess.LOCAL_WRITE);
        peer.send(peer.fpdu(RawPeer.readRequest(1, 0xbeef, 0, 8, source.token(), source.address())));
        assertEquals("01 02 e0 00", control(terminate()));
    }

    @Test
    void rfc5040_7_2_readRequestPastTheRegionIsABoundsViolation() throws Exception {
        established(1, 16);
        MemoryRegion source = region(64, MemoryAccess.REMOTE_READ);
        peer.send(peer.fpdu(RawPeer.readRequest(1, 0xbeef, 0, 8, source.token(), source.address() + 60)));
        assertEquals("01 01 e0 00", control(terminate()));
    }

    @Test
    void rfc5040_5_4_moreReadRequestsThanIrdAreACatastrophicStreamError() throws Exception {
        established(IwarpSettings.builder().maxReadDepth(1).build(), 1, 16);
        MemoryRegion source = region(64, MemoryAccess.REMOTE_READ);
        peer.send(RawPeer.concat(
                peer.fpdu(RawPeer.readRequest(1, 0xbeef, 0, 8, source.token(), source.address())),
                peer.fpdu(RawPeer.readRequest(2, 0xbeef, 8, 8, source.token(), source.address()))));
        byte[] first = peer.readFpdu();
        byte[] next = first[1] == 0x42 ? peer.readFpdu() : first;
        assertEquals("02 07 c0 00", Hex.of(ByteBuffer.wrap(next), 18, 4),
                "RDMAP / Remote Operation / 0x07 (IRD 1 exceeded)");
        assertTrue(peer.closedByPeer());
    }

    @Test
    void rfc5041_5_3_readRequestWithAWrongMsnIsAnInvalidMsnRange() throws Exception {
        established(1, 16);
        MemoryRegion source = region(64, MemoryAccess.REMOTE_READ);
        peer.send(peer.fpdu(RawPeer.readRequest(3, 0xbeef, 0, 8, source.token(), source.address())));
        assertEquals("12 03 c0 00", control(terminate()));
    }

    // ------------------------------------------------------------------ what we send

    @Test
    void rfc5041_5_1_ourSendsAreSegmentedToTheFpduSizeWithMsnAndMo() throws Exception {
        established(IwarpSettings.builder().maxFpduSize(1460).build(), 1, 16);
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[0])));
        side.events.awaitCompletions(1);
        MemoryRegion src = region(4000);
        byte[] data = new byte[4000];
        new Random(3).nextBytes(data);
        src.buffer().put(0, data);
        side.endpoint.postSend(src, 0, 4000, 9);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        while (got.size() < 4000) {
            byte[] f = peer.readFpdu();
            ByteBuffer b = ByteBuffer.wrap(f);
            int remaining = 4000 - got.size();
            assertEquals(remaining > 1436 ? 1460 : 6 + 18 + remaining, f.length + 6,
                    "every segment but the last fills a 1460-byte FPDU (1,436 bytes of payload)");
            assertEquals(0x43, f[1] & 0xFF);
            assertEquals(0, b.getInt(6), "QN 0");
            assertEquals(1, b.getInt(10), "MSN 1: one message, all segments");
            assertEquals(got.size(), b.getInt(14), "MO");
            got.write(f, 18, f.length - 18);
            assertEquals(got.size() == 4000, (f[0] & 0x40) != 0, "L only on the last segment");
        }
        assertArrayEquals(data, got.toByteArray());
        side.events.await("the Send completion", () -> side.events.completions().size() == 2);
        assertEquals(new Events.Completion(9, WorkRequestType.SEND, CompletionStatus.SUCCESS, 0, false, 0),
                side.events.completions().get(1));
    }

    @ParameterizedTest(name = "FPDUs of {0} bytes")
    @ValueSource(ints = {1460, 128})
    void rfc5041_5_2_aWriteOfMoreFpdusThanOneGatheringWriteTakesIsSentInOrderWithItsTaggedOffsets(int fpdu)
            throws Exception {
        // 300 full FPDUs (Ethernet-sized, and small ones of 108 bytes of payload): a first batch of 64, the
        // batch grown to 256, and the rest
        established(IwarpSettings.builder().maxFpduSize(fpdu).build(), 1, 16);
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[0])));
        side.events.awaitCompletions(1);
        int payload = (fpdu - 16 - 4) & ~3; // the tagged header with the MPA length, the CRC
        int size = 300 * payload;
        MemoryRegion src = region(size);
        byte[] data = new byte[size];
        new Random(5).nextBytes(data);
        src.buffer().put(0, data);
        long to = 0x7f00_1234_5000L;
        side.endpoint.postRdmaWrite(src, 0, size, to, 0x1234_5678, 11);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        for (int i = 0; i < 300; i++) {
            byte[] f = peer.readFpdu(); // CRC checked
            ByteBuffer b = ByteBuffer.wrap(f);
            assertEquals(fpdu, f.length + 6, "FPDU " + i + " is full");
            assertEquals(i == 299 ? 0xC1 : 0x81, f[0] & 0xFF, "tagged, DDP version 1, L only on the last (FPDU " + i + ")");
            assertEquals(0x40, f[1] & 0xFF, "RDMA Write");
            assertEquals(0x1234_5678, b.getInt(2), "STag");
            assertEquals(to + (long) i * payload, b.getLong(6), "TO of FPDU " + i);
            got.write(f, 14, f.length - 14);
        }
        assertArrayEquals(data, got.toByteArray());
        side.events.await("the Write completion", () -> side.events.completions().size() == 2);
        assertEquals(new Events.Completion(11, WorkRequestType.RDMA_WRITE, CompletionStatus.SUCCESS, size, false, 0),
                side.events.completions().get(1));
    }

    @Test
    void rfc5044_4_1_sendsOfEveryPadLengthCarryTheirBytesWithZeroPadAndACorrectCrc() throws Exception {
        // 255, 256, 257 and 258 bytes of payload, with PADs of 1, 0, 3 and 2 bytes; then 1 byte (PAD 3)
        // and none (header and trailer only)
        established(IwarpSettings.builder().maxFpduSize(1460).build(), 1, 16);
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[0])));
        side.events.awaitCompletions(1);
        int[] sizes = {255, 256, 257, 258, 1, 0};
        MemoryRegion src = region(1100);
        byte[] data = new byte[1100];
        new Random(8).nextBytes(data);
        src.buffer().put(0, data);
        int offset = 0;
        for (int i = 0; i < sizes.length; i++) {
            side.endpoint.postSend(src, offset, sizes[i], 200 + i);
            offset += sizes[i];
        }
        offset = 0;
        for (int i = 0; i < sizes.length; i++) {
            byte[] f = peer.readFpdu(); // CRC checked, PAD skipped
            assertEquals(18 + sizes[i], f.length, "Send of " + sizes[i] + " bytes");
            assertEquals(i + 1, ByteBuffer.wrap(f).getInt(10), "MSN of Send " + i);
            assertArrayEquals(Arrays.copyOfRange(data, offset, offset + sizes[i]), Arrays.copyOfRange(f, 18, f.length),
                    "payload of the Send of " + sizes[i] + " bytes");
            offset += sizes[i];
        }
        side.events.await("the Send completions", () -> side.events.completions().size() == 1 + sizes.length);
    }

    @Test
    void rfc5041_5_3_aSendQueueOfMoreSendsThanOneBatchStartsGoesOutInOrderWithConsecutiveMsns()
            throws Exception {
        // a batch starts at most 64 Sends: 100 queued at once go out in more than one, wherever they end
        established(IwarpSettings.builder().maxFpduSize(1460).build(), 1, 16, new EndpointSettings(128, 16));
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[0])));
        side.events.awaitCompletions(1);
        MemoryRegion src = region(100 * 64);
        byte[] data = new byte[100 * 64];
        new Random(6).nextBytes(data);
        src.buffer().put(0, data);
        for (int i = 0; i < 100; i++) {
            side.endpoint.postSend(src, i * 64, 64, 100 + i);
        }
        for (int i = 0; i < 100; i++) {
            byte[] f = peer.readFpdu(); // CRC checked
            ByteBuffer b = ByteBuffer.wrap(f);
            assertEquals(18 + 64, f.length, "Send " + i);
            assertEquals("41 43", Hex.of(b, 0, 2), "untagged, L, Send (Send " + i + ")");
            assertEquals(0, b.getInt(6), "QN 0");
            assertEquals(i + 1, b.getInt(10), "MSN of Send " + i);
            assertEquals(0, b.getInt(14), "MO");
            assertArrayEquals(Arrays.copyOfRange(data, i * 64, i * 64 + 64), Arrays.copyOfRange(f, 18, f.length),
                    "payload of Send " + i);
        }
        side.events.await("the 100 Send completions", () -> side.events.completions().size() == 101);
        List<Events.Completion> all = side.events.completions();
        for (int i = 0; i < 100; i++) {
            assertEquals(new Events.Completion(100 + i, WorkRequestType.SEND, CompletionStatus.SUCCESS, 0, false, 0),
                    all.get(1 + i), "completion " + i + " in post order");
        }
    }

    @Test
    void rfc5044_4_byDefaultOurFpdusFillThePathsMssAsSiwsDo() throws Exception {
        // siw_update_tcpseg: the socket's MSS (MTU - 20 - 20 - 12 for IPv4 with timestamps), rounded down to 8
        int mtu = NetworkInterface.getByInetAddress(InetAddress.getByName("127.0.0.1")).getMTU();
        int expected = Math.min(65536, (mtu - 52) & ~7);
        if (mtu == 65536) {
            assertEquals(65480, expected, "Linux loopback: siw sends FPDUs of 65,480 bytes");
        }
        established(1, 16);
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[0])));
        side.events.awaitCompletions(1);
        int size = 3 * expected;
        MemoryRegion src = region(size);
        byte[] data = new byte[size];
        new Random(4).nextBytes(data);
        src.buffer().put(0, data);
        side.endpoint.postSend(src, 0, size, 10);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        int fpdus = 0;
        while (got.size() < size) {
            byte[] f = peer.readFpdu();
            int remaining = size - got.size();
            int room = expected - 6 - 18;
            assertEquals(remaining > room ? expected : 6 + 18 + remaining + (-(18 + 2 + remaining) & 3),
                    f.length + 6 + (-(f.length + 2) & 3), "FPDU " + fpdus + " of a Send of " + size + " bytes");
            got.write(f, 18, f.length - 18);
            fpdus++;
        }
        assertArrayEquals(data, got.toByteArray());
        assertEquals(4, fpdus, "three full FPDUs and the rest");
    }

    @Test
    void rfc5040_4_5_ourReadIsCompletedByTheMatchingResponseOnly() throws Exception {
        established(1, 16);
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[0])));
        side.events.awaitCompletions(1);
        MemoryRegion sink = region(64, MemoryAccess.LOCAL_WRITE);
        side.endpoint.postRdmaRead(sink, 8, 32, 0x1234_5000L, 0x55aa00, 3);
        ByteBuffer request = ByteBuffer.wrap(peer.readFpdu());
        assertEquals(0x41, request.get(1) & 0xFF, "Read Request");
        assertEquals(1, request.getInt(6), "QN 1");
        assertEquals(1, request.getInt(10), "MSN 1");
        assertEquals(sink.token(), request.getInt(18), "sink STag: our region");
        assertEquals(sink.address() + 8, request.getLong(22), "sink TO");
        assertEquals(32, request.getInt(30));
        assertEquals(0x55aa00, request.getInt(34), "source STag");
        assertEquals(0x1234_5000L, request.getLong(38), "source TO");
        byte[] data = new byte[32];
        new Random(4).nextBytes(data);
        peer.send(RawPeer.concat(
                peer.fpdu(RawPeer.tagged(0x81, 0x42, sink.token(), sink.address() + 8, java.util.Arrays.copyOf(data, 20))),
                peer.fpdu(RawPeer.tagged(0xC1, 0x42, sink.token(), sink.address() + 28,
                        java.util.Arrays.copyOfRange(data, 20, 32)))));
        side.events.await("the Read", () -> side.events.completions().size() == 2);
        assertEquals(new Events.Completion(3, WorkRequestType.RDMA_READ, CompletionStatus.SUCCESS, 32, false, 0),
                side.events.completions().get(1));
        byte[] placed = new byte[32];
        sink.buffer().get(8, placed);
        assertArrayEquals(data, placed);
    }

    @Test
    void rfc5040_4_5_aReadResponseToAnotherStagIsAnInvalidStag() throws Exception {
        established(1, 16);
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[0])));
        side.events.awaitCompletions(1);
        MemoryRegion sink = region(64, MemoryAccess.LOCAL_WRITE);
        side.endpoint.postRdmaRead(sink, 0, 8, 0x5000L, 0x55aa00, 3);
        peer.readFpdu();
        peer.send(peer.fpdu(RawPeer.tagged(0xC1, 0x42, sink.token() ^ 1, sink.address(), new byte[8])));
        assertEquals("11 00 c0 00", control(terminate()));
        assertEquals(CompletionStatus.FLUSHED, side.events.completions().get(1).status());
    }

    @Test
    void aReadResponseWithoutReadRequestIsACatastrophicDdpError() throws Exception {
        established(1, 16);
        peer.send(peer.fpdu(RawPeer.tagged(0xC1, 0x42, 5, 0, new byte[8])));
        assertEquals("10 00 c0 00", control(terminate()));
    }

    // ------------------------------------------------------------------ the peer's Terminate

    @Test
    void iwarp_5_5_siwsTerminateNamingOurReadFailsThatReadAndIsNotAnswered() throws Exception {
        established(1, 16);
        peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[0])));
        side.events.awaitCompletions(1);
        MemoryRegion sink = region(64, MemoryAccess.LOCAL_WRITE);
        side.endpoint.postRdmaRead(sink, 0, 8, 0x5000L, 0x55aa00, 3);
        byte[] request = peer.readFpdu();
        // RDMAP / Remote Protection / Invalid STag in siw's layout (layer in the low nibble, M D R in bits 0-2)
        byte[] body = RawPeer.concat(Hex.bytes("10 00 07 00"), new byte[] {0, 0}, request);
        peer.send(peer.fpdu(RawPeer.untagged(0x41, 0x47, 0, 2, 1, 0, body)));
        assertEquals(DisconnectCause.QP_ERROR, side.events.awaitDisconnected());
        assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, side.events.completions().get(1).status());
        String detail = side.events.detail();
        assertTrue(detail.contains("RDMAP / Remote Protection Error / 0x00 Invalid STag"), detail);
        assertTrue(detail.contains("siw"), detail);
        assertTrue(peer.closedByPeer(), "no Terminate in answer, just the end");
        assertEquals(1, rig.provider.statistics().terminatesReceived());
        assertEquals(0, rig.provider.statistics().terminatesSent());
    }

    @Test
    void iwarp_5_5_realSiwsCrcTerminateIsSurfaced() throws Exception {
        established(2, 16);
        peer.send(peer.fpdu(RawPeer.untagged(0x41, 0x47, 0, 2, 1, 0, Hex.bytes("02 02 00 00"))));
        assertEquals(DisconnectCause.QP_ERROR, side.events.awaitDisconnected());
        assertTrue(side.events.detail().contains("LLP / MPA Error / 0x02 MPA CRC Error"), side.events.detail());
        assertEquals(2, side.events.completions().stream().filter(c -> c.status() == CompletionStatus.FLUSHED).count());
    }

    @Test
    void thePeersFinEndsTheConnectionAsPeer() throws Exception {
        established(2, 16);
        peer.hangUp();
        assertEquals(DisconnectCause.PEER, side.events.awaitDisconnected());
        assertEquals(2, side.events.completions().size());
    }

    @Test
    void thePeersFinInTheMiddleOfAnFpduSaysSo() throws Exception {
        established(2, 16);
        byte[] f = peer.fpdu(RawPeer.send(1, 0, true, new byte[8]));
        peer.send(java.util.Arrays.copyOf(f, 10));
        peer.hangUp();
        assertEquals(DisconnectCause.PEER, side.events.awaitDisconnected());
        assertTrue(side.events.detail().contains("middle of an FPDU"), side.events.detail());
    }
}
