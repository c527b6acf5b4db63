package smbdirect.impl.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.impl.trace.Smb2Negotiate;
import smbdirect.impl.trace.WiresharkOracle;
import smbdirect.impl.trace.WiresharkOracle.Msg;
import smbdirect.testsupport.SmbDirectTrace;

/**
 * Wireshark's own SMB Direct dissector (tshark's {@code smb_direct} on a trace written by
 * {@link smbdirect.impl.trace.PcapTraceWriter}) as an independent oracle for the encoders: it must
 * decode exactly the field values we encoded. Credits stay at most 255 (the dissector's heuristic
 * limit). Without tshark, a missing judge (fails in strict mode, CI).
 */
class WiresharkOracleTest {

    @TempDir
    Path tmp;

    static byte[] negotiateRequest(int credits, long preferred, long maxReceive, long maxFragmented) {
        ByteBuffer b = ByteBuffer.allocate(SmbdWire.NEGOTIATE_REQUEST_SIZE);
        NegotiateRequest.encode(b, 0, SmbdWire.PROTOCOL_V1, SmbdWire.PROTOCOL_V1, credits, preferred, maxReceive,
                maxFragmented);
        return b.array();
    }

    static byte[] negotiateResponse(int requested, int granted, long maxReadWrite, long preferred, long maxReceive,
            long maxFragmented) {
        ByteBuffer b = ByteBuffer.allocate(SmbdWire.NEGOTIATE_RESPONSE_SIZE);
        NegotiateResponse.encode(b, 0, SmbdWire.PROTOCOL_V1, SmbdWire.PROTOCOL_V1, SmbdWire.PROTOCOL_V1, requested,
                granted, SmbdWire.STATUS_SUCCESS, maxReadWrite, preferred, maxReceive, maxFragmented);
        return b.array();
    }

    static byte[] data(int requested, int granted, int flags, long remaining, byte[] payload, int from, int len) {
        int offset = len == 0 ? 0 : SmbdWire.DATA_OFFSET;
        ByteBuffer b = ByteBuffer.allocate(len == 0 ? SmbdWire.DATA_HEADER_SIZE : offset + len);
        int n = DataTransfer.encodeHeader(b, 0, requested, granted, flags, remaining, offset, len);
        b.put(n, payload, from, len);
        return b.array();
    }

    /** Splits {@code payload} with our encoder into messages of at most {@code chunk} payload bytes. */
    static List<byte[]> fragments(byte[] payload, int chunk, int requested, int granted) {
        List<byte[]> out = new ArrayList<>();
        for (int pos = 0; pos < payload.length; pos += chunk) {
            int len = Math.min(chunk, payload.length - pos);
            out.add(data(requested, granted, 0, payload.length - pos - len, payload, pos, len));
        }
        return out;
    }

    /** Fails unless tshark's fields of {@code frame} have these values. */
    static void assertFields(SmbDirectTrace.Frame frame, Object... nameValue) {
        for (int i = 0; i < nameValue.length; i += 2) {
            String name = (String) nameValue[i];
            assertEquals(((Number) nameValue[i + 1]).longValue(), frame.number(name), () -> name + " in " + frame);
        }
    }

    /** Fails unless the {@code smb_direct} layer of {@code frame} has exactly {@code message} and these fields, with these values. */
    static void assertExactly(SmbDirectTrace.Frame frame, String message, Object... nameValue) {
        assertFields(frame, nameValue);
        List<String> expected = new ArrayList<>(List.of(message));
        for (int i = 0; i < nameValue.length; i += 2) {
            expected.add((String) nameValue[i]);
        }
        assertEquals(expected, frame.smbDirectFields(), () -> "the fields tshark shows in " + frame);
    }

    @Test
    @DisplayName("R-2.2-02 / 2.2.1 / 2.2.2 / 2.2.3: tshark decodes every encoded message type with our field values")
    void R_2_2_02_tsharkDecodesEncodedSession() throws Exception {
        byte[] small = Smb2Negotiate.small(0);
        byte[] big = Smb2Negotiate.big(1);
        List<Msg> msgs = new ArrayList<>();
        msgs.add(new Msg(true, negotiateRequest(255, 1364, 8192, 1048576)));
        msgs.add(new Msg(false, negotiateResponse(200, 254, 1048576, 1364, 8192, 1048576)));
        msgs.add(new Msg(true, data(255, 17, 0, 0, small, 0, small.length)));
        for (byte[] f : fragments(big, 128, 10, 1)) {
            msgs.add(new Msg(true, f));
        }
        msgs.add(new Msg(false, data(255, 3, SmbdWire.FLAG_RESPONSE_REQUESTED, 0, new byte[0], 0, 0)));
        msgs.add(new Msg(true, data(255, 10, 0, 0, new byte[0], 0, 0)));

        List<SmbDirectTrace.Frame> fr = WiresharkOracle.check(msgs, tmp, "encoded-session");
        assertEquals(msgs.size(), fr.size(), "one frame per message");

        SmbDirectTrace.Frame req = fr.get(0);
        assertEquals("NegotiateRequest", req.type());
        assertEquals("c2s", req.direction());
        assertExactly(req, "smb_direct.negotiate_request", "smb_direct.version.min", 0x100, "smb_direct.version.max", 0x100,
                "smb_direct.credits.requested", 255, "smb_direct.preferred_send_size", 1364,
                "smb_direct.max_receive_size", 8192, "smb_direct.max_fragmented_size", 1048576);

        SmbDirectTrace.Frame rsp = fr.get(1);
        assertEquals("NegotiateResponse", rsp.type());
        assertEquals("s2c", rsp.direction());
        assertExactly(rsp, "smb_direct.negotiate_response", "smb_direct.version.min", 0x100, "smb_direct.version.max", 0x100,
                "smb_direct.version.negotiated", 0x100, "smb_direct.credits.requested", 200,
                "smb_direct.credits.granted", 254, "smb_direct.status", 0, "smb_direct.max_read_write_size", 1048576,
                "smb_direct.preferred_send_size", 1364, "smb_direct.max_receive_size", 8192,
                "smb_direct.max_fragmented_size", 1048576);

        SmbDirectTrace.Frame smb2 = fr.get(2);
        assertEquals("DataMessage", smb2.type());
        assertFields(smb2, "smb_direct.credits.requested", 255, "smb_direct.credits.granted", 17,
                "smb_direct.flags", 0, "smb_direct.remaining_length", 0, "smb_direct.data_offset", 24,
                "smb_direct.data_length", small.length);
        assertEquals("smb2", smb2.payloadProtocols().get(0));
        assertFields(smb2, "smb2.cmd", 0, "smb2.dialect_count", 4, "smb2.msg_id", 0);

        long[] remaining = {212, 84, 0};
        long[] lengths = {128, 128, 84};
        for (int i = 0; i < 3; i++) {
            SmbDirectTrace.Frame f = fr.get(3 + i);
            assertEquals("DataMessage", f.type());
            assertFields(f, "smb_direct.credits.requested", 10, "smb_direct.credits.granted", 1,
                    "smb_direct.remaining_length", remaining[i], "smb_direct.data_offset", 24,
                    "smb_direct.data_length", lengths[i]);
        }
        long lastFrame = fr.get(5).number();
        assertEquals(lastFrame, fr.get(3).number("smb_direct.reassembled_in"));
        assertEquals(lastFrame, fr.get(4).number("smb_direct.reassembled_in"));
        assertFields(fr.get(5), "smb_direct.reassembled.length", 340, "smb_direct.fragment.count", 3,
                "smb2.dialect_count", 120, "smb2.msg_id", 1);
        assertTrue(fr.get(5).payloadProtocols().contains("smb2"));
        assertFalse(fr.get(3).payloadProtocols().contains("smb2"), "no SMB2 on a first fragment");

        SmbDirectTrace.Frame keepalive = fr.get(6);
        assertEquals("DataMessage", keepalive.type());
        assertEquals("s2c", keepalive.direction());
        assertFields(keepalive, "smb_direct.credits.requested", 255, "smb_direct.credits.granted", 3,
                "smb_direct.flags", 1, "smb_direct.flags.response_requested", 1, "smb_direct.remaining_length", 0,
                "smb_direct.data_offset", 0, "smb_direct.data_length", 0);

        SmbDirectTrace.Frame grant = fr.get(7);
        assertEquals("DataMessage", grant.type());
        assertFields(grant, "smb_direct.credits.requested", 255, "smb_direct.credits.granted", 10,
                "smb_direct.flags", 0, "smb_direct.data_length", 0);

        for (SmbDirectTrace.Frame f : fr) {
            assertTrue(f.smbDirect(), () -> "not recognised as SMB Direct: " + f);
            assertEquals(List.of(), f.expert(), () -> "expert info on " + f);
            assertFalse(f.malformed(), () -> "malformed: " + f);
        }
    }
}
