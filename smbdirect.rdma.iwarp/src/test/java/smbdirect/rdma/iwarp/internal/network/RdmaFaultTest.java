package smbdirect.rdma.iwarp.internal.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.rdma.iwarp.internal.conformance.RawPeer;

/**
 * Faults in RDMA mode on a real socket, each against a connection of a provider that also carries
 * a busy {@link Bystander}: the subject's endpoint has receives and Sends queued (the Sends wait,
 * as a responder's do until the initiator's first FPDU, RFC 5044 §7.1.2), a raw peer sends the
 * faulty FPDU, and the test checks the Terminate on the wire (layer, type, code, copied header),
 * the disconnect the consumer sees, every queued request completed exactly once, guard bytes
 * around the registrations untouched, everything given back, and the bystander unharmed.
 */
class RdmaFaultTest {

    private static final int PAGE = 4096;
    private static final byte GUARD = (byte) 0xA5;
    private FaultRig rig;

    @BeforeEach
    void open() throws Exception {
        rig = new FaultRig("rdma-faults");
    }

    @AfterEach
    void close() throws Exception {
        rig.close();
    }

    /** A registration in the middle of three pages: the pages before and after are guards. */
    private record Guarded(ByteBuffer whole, MemoryRegion region) {
        static Guarded register(RdmaEndpoint ep, EnumSet<MemoryAccess> access) throws Exception {
            ByteBuffer whole = ByteBuffer.allocateDirect(3 * PAGE);
            for (int i = 0; i < whole.capacity(); i++) {
                whole.put(i, i < PAGE || i >= 2 * PAGE ? GUARD : (byte) i);
            }
            return new Guarded(whole, ep.register(whole.slice(PAGE, PAGE), access));
        }

        void assertUntouched() {
            for (int i = 0; i < whole.capacity(); i++) {
                byte expected = i < PAGE || i >= 2 * PAGE ? GUARD : (byte) i;
                if (whole.get(i) != expected) {
                    throw new AssertionError("byte " + (i - PAGE) + " relative to the registration changed to 0x"
                            + Integer.toHexString(whole.get(i) & 0xFF));
                }
            }
        }
    }

    /** Posts two Sends that stay queued until the initiator's first FPDU (wrIds 10, 11). */
    private static MemoryRegion queueSends(RdmaEndpoint ep) throws Exception {
        MemoryRegion sends = ep.register(ByteBuffer.allocateDirect(256), EnumSet.of(MemoryAccess.LOCAL_WRITE));
        ep.postSend(sends, 0, 100, 10);
        ep.postSend(sends, 100, 100, 11);
        return sends;
    }

    private static Map<Long, CompletionStatus[]> flushed(int receives, long... sends) {
        Map<Long, CompletionStatus[]> m = new HashMap<>(FaultRig.flushedReceives(receives));
        for (long s : sends) {
            m.put(s, new CompletionStatus[] {CompletionStatus.FLUSHED});
        }
        return m;
    }

    /** The subject ended with QP_ERROR naming the Terminate it sent. */
    private static void assertEndedWithTerminate(FaultRig.RawSession s, String code) throws Exception {
        assertEquals(DisconnectCause.QP_ERROR, s.events().awaitDisconnected(), s.events().detail());
        assertTrue(s.events().detail().startsWith("sent Terminate ") && s.events().detail().contains(code),
                s.events().detail());
    }

    @Test
    void rfc5044_6_1_aCrcMismatchSendsTerminateCrcErrorAndFlushesTheQueueOnce() throws Exception {
        FaultRig.RawSession s = rig.raw(true, 4, 256);
        queueSends(s.endpoint());
        long before = rig.subject.statistics().terminatesSent();
        byte[] ulpdu = RawPeer.send(1, 0, true, new byte[64]);
        byte[] fpdu = s.peer().fpdu(ulpdu);
        fpdu[fpdu.length - 1] ^= 0x01; // the CRC field, LSB first: the last byte is its most significant
        s.peer().send(fpdu);
        WireTerminate t = WireTerminate.read(s.peer());
        t.assertCode(2, 0, 0x02);
        assertEquals(List.of(), t.before(), "nothing before the Terminate (the queued Sends are flushed)");
        assertTrue(s.peer().closedByPeer(), "the subject closes after the Terminate");
        assertEndedWithTerminate(s, "MPA CRC Error");
        FaultRig.assertCompletedOnce(s.events(), flushed(4, 10, 11));
        assertEquals(before + 1, rig.subject.statistics().terminatesSent());
        s.peer().close();
        rig.assertRecovered();
    }

    @Test
    void rfc5041_7_2_aSendLongerThanItsReceiveIsTooLongEvenInTheLargestFpdu() throws Exception {
        FaultRig.RawSession s = rig.raw(false, 4, 1024);
        queueSends(s.endpoint());
        // the largest FPDU there is: ULPDU_Length 65535 (RFC 5044 §4.1), a Send of 65517 bytes
        byte[] ulpdu = RawPeer.send(1, 0, true, new byte[65535 - 18]);
        s.peer().send(s.peer().fpdu(ulpdu));
        WireTerminate t = WireTerminate.read(s.peer());
        t.assertCode(1, 2, 0x05);
        t.assertCopiesHeader(ulpdu);
        assertEndedWithTerminate(s, "DDP Message too long");
        Map<Long, CompletionStatus[]> expected = flushed(4, 10, 11);
        expected.put(0L, new CompletionStatus[] {CompletionStatus.LOCAL_LENGTH_ERROR});
        FaultRig.assertCompletedOnce(s.events(), expected);
        s.peer().close();
        rig.assertRecovered();
    }

    @Test
    void rfc5044_4_1_theLargestFpduIsAcceptedWhereTheReceiveHoldsIt() throws Exception {
        FaultRig.RawSession s = rig.raw(true, 1, 65535);
        byte[] payload = new byte[65535 - 18];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 11);
        }
        s.peer().send(s.peer().fpdu(RawPeer.send(1, 0, true, payload)));
        List<smbdirect.rdma.iwarp.internal.conformance.Events.Completion> c = s.events().awaitCompletions(1);
        assertEquals(CompletionStatus.SUCCESS, c.get(0).status());
        assertEquals(payload.length, c.get(0).bytes());
        byte[] got = new byte[payload.length];
        s.side().receives().buffer().get(0, got);
        assertArrayEquals(payload, got);
        s.peer().close();
        assertEquals(DisconnectCause.PEER, s.events().awaitDisconnected());
        rig.assertRecovered();
    }

    @Test
    void rfc5040_4_4_aReadRequestWithBytesAfterItsBodyIsRefused() throws Exception {
        FaultRig.RawSession s = rig.raw(false, 4, 256);
        queueSends(s.endpoint());
        Guarded source = Guarded.register(s.endpoint(), EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ));
        byte[] request = RawPeer.readRequest(1, 0x1234, 0, 64, source.region().token(), source.region().address());
        byte[] longer = RawPeer.concat(request, new byte[8]);
        s.peer().send(s.peer().fpdu(longer));
        WireTerminate t = WireTerminate.read(s.peer());
        t.assertCode(1, 0, 0x00);
        assertEquals(List.of(), t.before(), "no Read Response for the refused request");
        assertEndedWithTerminate(s, "DDP / Local Catastrophic Error");
        FaultRig.assertCompletedOnce(s.events(), flushed(4, 10, 11));
        source.assertUntouched();
        s.peer().close();
        rig.assertRecovered();
    }

    /** Tagged operations the registrations do not allow (RFC 5042, iwarp.md §6.2). */
    enum Tagged {
        WRITE_UNKNOWN_STAG(1, 1, 0x00),
        WRITE_INVALIDATED(1, 1, 0x00),
        WRITE_DEREGISTERED(1, 1, 0x00),
        WRITE_STALE_KEY(1, 1, 0x00),
        WRITE_READ_ONLY(1, 1, 0x00),
        WRITE_PAST_THE_END(1, 1, 0x01),
        WRITE_BEFORE_THE_BASE(1, 1, 0x01),
        WRITE_TO_WRAP(1, 1, 0x03),
        READ_UNKNOWN_STAG(0, 1, 0x00),
        READ_INVALIDATED(0, 1, 0x00),
        READ_WRITE_ONLY(0, 1, 0x02),
        READ_PAST_THE_END(0, 1, 0x01),
        READ_TO_WRAP(0, 1, 0x04);

        final int layer;
        final int type;
        final int code;

        Tagged(int layer, int type, int code) {
            this.layer = layer;
            this.type = type;
            this.code = code;
        }

        boolean isWrite() {
            return name().startsWith("WRITE");
        }
    }

    @ParameterizedTest
    @EnumSource(Tagged.class)
    void rfc5042_aTaggedAccessTheRegistrationDoesNotAllowIsTerminatedAndTouchesNoByte(Tagged fault) throws Exception {
        FaultRig.RawSession s = rig.raw(true, 4, 256);
        RdmaEndpoint ep = s.endpoint();
        EnumSet<MemoryAccess> access = switch (fault) {
            case WRITE_READ_ONLY -> EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ);
            case READ_WRITE_ONLY -> EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE);
            default -> EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE, MemoryAccess.REMOTE_READ);
        };
        Guarded target = Guarded.register(ep, access);
        Guarded neighbour = Guarded.register(ep, EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_WRITE,
                MemoryAccess.REMOTE_READ));
        MemoryRegion r = target.region();
        int stag = r.token();
        long to = r.address();
        int length = 64;
        Map<Long, CompletionStatus[]> expected = flushed(4, 10, 11);
        switch (fault) {
            case WRITE_UNKNOWN_STAG, READ_UNKNOWN_STAG -> stag = (r.token() ^ 0x5A5A5A00) | 0x100;
            case WRITE_STALE_KEY -> stag = r.token() ^ 0x01;
            case WRITE_INVALIDATED, READ_INVALIDATED -> {
                ep.postLocalInvalidate(r, 20);
                s.events().awaitCompletions(1);
                expected.put(20L, new CompletionStatus[] {CompletionStatus.SUCCESS});
            }
            case WRITE_DEREGISTERED -> ep.deregister(r);
            case WRITE_PAST_THE_END, READ_PAST_THE_END -> to = r.address() + PAGE - length + 1;
            case WRITE_BEFORE_THE_BASE -> to = r.address() - 16;
            case WRITE_TO_WRAP, READ_TO_WRAP -> to = -16L;
            default -> {
            }
        }
        queueSends(ep); // after the local invalidate: a responder's Sends wait for the first FPDU
        byte[] ulpdu;
        if (fault.isWrite()) {
            byte[] payload = new byte[length];
            java.util.Arrays.fill(payload, (byte) 0x5A);
            ulpdu = RawPeer.tagged(0xC1, 0x40, stag, to, payload);
        } else {
            ulpdu = RawPeer.readRequest(1, 0x777, 0, length, stag, to);
        }
        s.peer().send(s.peer().fpdu(ulpdu));
        WireTerminate t = WireTerminate.read(s.peer());
        t.assertCode(fault.layer, fault.type, fault.code);
        t.assertCopiesHeader(ulpdu);
        assertEquals(!fault.isWrite(), t.r(), "R: the Read Request is copied for an RDMAP protection error");
        if (!fault.isWrite()) {
            byte[] body = new byte[28];
            System.arraycopy(t.copied(), 2 + 18, body, 0, 28);
            byte[] sent = new byte[28];
            System.arraycopy(ulpdu, 18, sent, 0, 28);
            assertArrayEquals(sent, body, "the copied Read Request body");
        }
        assertEquals(List.of(), t.before(), "nothing before the Terminate: no Read Response, no queued Send");
        assertEquals(DisconnectCause.QP_ERROR, s.events().awaitDisconnected(), s.events().detail());
        FaultRig.assertCompletedOnce(s.events(), expected);
        target.assertUntouched();
        neighbour.assertUntouched();
        s.peer().close();
        rig.assertRecovered();
    }

    @Test
    void rfc5040_5_4_readRequestsBeyondIrdAreACatastrophicStreamErrorAfterTheResponsesWithinIt() throws Exception {
        FaultRig.RawSession s = rig.raw(true, 4, 256);
        Guarded source = Guarded.register(s.endpoint(), EnumSet.of(MemoryAccess.LOCAL_WRITE, MemoryAccess.REMOTE_READ));
        int ird = s.endpoint().inboundReadDepth();
        assertEquals(4, ird, "IRD as negotiated with the raw peer");
        byte[] all = new byte[0];
        for (int i = 1; i <= ird + 1; i++) {
            all = RawPeer.concat(all, s.peer().fpdu(RawPeer.readRequest(i, 0x900 + i, 0, 32,
                    source.region().token(), source.region().address() + 64L * i)));
        }
        s.peer().send(all); // one write: the IRD + 1st arrives before any response could free a slot
        WireTerminate t = WireTerminate.read(s.peer());
        t.assertCode(0, 2, 0x07);
        t.assertCopiesHeader(RawPeer.readRequest(ird + 1, 0x900 + ird + 1, 0, 32, source.region().token(),
                source.region().address() + 64L * (ird + 1)));
        // whatever went out before the Terminate are complete Read Responses of the first requests, in order
        int i = 1;
        for (byte[] response : t.before()) {
            ByteBuffer b = ByteBuffer.wrap(response);
            assertEquals(0xC1, response[0] & 0xFF, "a tagged, last segment");
            assertEquals(0x42, response[1] & 0xFF, "a Read Response");
            assertEquals(0x900 + i, b.getInt(2), "Read Response sink STag of request " + i);
            for (int k = 0; k < 32; k++) {
                assertEquals((byte) (64 * i + k), response[14 + k], "Read Response byte " + k + " of request " + i);
            }
            i++;
        }
        assertTrue(t.before().size() <= ird, "no more responses than IRD: " + t.before().size());
        assertEndedWithTerminate(s, "0x07");
        FaultRig.assertCompletedOnce(s.events(), FaultRig.flushedReceives(4));
        source.assertUntouched();
        s.peer().close();
        rig.assertRecovered();
    }
}
