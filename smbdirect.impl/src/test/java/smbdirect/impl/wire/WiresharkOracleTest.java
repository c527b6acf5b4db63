package smbdirect.impl.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.impl.trace.Smb2Negotiate;
import smbdirect.impl.trace.SmbdPcapTool;
import smbdirect.impl.trace.SmbdPcapTool.Msg;

/**
 * Wireshark's SMB Direct dissector (through shared/tools/smbd_pcap.py and tshark) as an
 * independent oracle for the encoders: it must decode exactly the field values we encoded.
 * Credits stay at most 255 (the dissector's heuristic limit, wireshark-trace.md section 6).
 */
class WiresharkOracleTest {

    @TempDir
    Path tmp;

    @BeforeEach
    void tools() {
        SmbdPcapTool.assumeTshark();
    }

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

    @SuppressWarnings("unchecked")
    static Map<String, Object> fields(Map<String, Object> frame) {
        return (Map<String, Object>) frame.get("fields");
    }

    static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], ((Number) kv[i + 1]).longValue());
        }
        return m;
    }

    static void assertFieldsContain(Map<String, Object> expected, Map<String, Object> frame) {
        Map<String, Object> actual = fields(frame);
        for (Map.Entry<String, Object> e : expected.entrySet()) {
            assertEquals(e.getValue(), actual.get(e.getKey()), () -> e.getKey() + " in frame " + frame);
        }
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

        List<Map<String, Object>> fr = SmbdPcapTool.check(msgs, tmp);
        assertEquals(msgs.size(), fr.size(), "one frame per message");

        Map<String, Object> req = fr.get(0);
        assertEquals("NegotiateRequest", req.get("type"));
        assertEquals("c2s", req.get("dir"));
        assertEquals(map("smb_direct.version.min", 0x100, "smb_direct.version.max", 0x100,
                "smb_direct.credits.requested", 255, "smb_direct.preferred_send_size", 1364,
                "smb_direct.max_receive_size", 8192, "smb_direct.max_fragmented_size", 1048576), fields(req));

        Map<String, Object> rsp = fr.get(1);
        assertEquals("NegotiateResponse", rsp.get("type"));
        assertEquals("s2c", rsp.get("dir"));
        assertEquals(map("smb_direct.version.min", 0x100, "smb_direct.version.max", 0x100,
                "smb_direct.version.negotiated", 0x100, "smb_direct.credits.requested", 200,
                "smb_direct.credits.granted", 254, "smb_direct.status", 0, "smb_direct.max_read_write_size", 1048576,
                "smb_direct.preferred_send_size", 1364, "smb_direct.max_receive_size", 8192,
                "smb_direct.max_fragmented_size", 1048576), fields(rsp));

        Map<String, Object> smb2 = fr.get(2);
        assertEquals("DataMessage", smb2.get("type"));
        assertFieldsContain(map("smb_direct.credits.requested", 255, "smb_direct.credits.granted", 17,
                "smb_direct.flags", 0, "smb_direct.remaining_length", 0, "smb_direct.data_offset", 24,
                "smb_direct.data_length", small.length), smb2);
        assertEquals("smb2", ((List<?>) smb2.get("payload_protocols")).get(0));
        assertEquals(Map.of("smb2.cmd", 0L, "smb2.dialect_count", 4L, "smb2.msg_id", 0L),
                subset((Map<?, ?>) smb2.get("smb2"), "smb2.cmd", "smb2.dialect_count", "smb2.msg_id"));

        long[] remaining = {212, 84, 0};
        long[] lengths = {128, 128, 84};
        for (int i = 0; i < 3; i++) {
            Map<String, Object> f = fr.get(3 + i);
            assertEquals("DataMessage", f.get("type"));
            assertFieldsContain(map("smb_direct.credits.requested", 10, "smb_direct.credits.granted", 1,
                    "smb_direct.remaining_length", remaining[i], "smb_direct.data_offset", 24,
                    "smb_direct.data_length", lengths[i]), f);
        }
        long lastFrame = ((Number) fr.get(5).get("frame")).longValue();
        assertEquals(lastFrame, fields(fr.get(3)).get("smb_direct.reassembled_in"));
        assertEquals(lastFrame, fields(fr.get(4)).get("smb_direct.reassembled_in"));
        assertEquals(340L, fields(fr.get(5)).get("smb_direct.reassembled.length"));
        assertEquals(3L, fields(fr.get(5)).get("smb_direct.fragment.count"));
        assertTrue(((List<?>) fr.get(5).get("payload_protocols")).contains("smb2"));
        assertEquals(120L, ((Map<?, ?>) fr.get(5).get("smb2")).get("smb2.dialect_count"));
        assertEquals(1L, ((Map<?, ?>) fr.get(5).get("smb2")).get("smb2.msg_id"));

        Map<String, Object> keepalive = fr.get(6);
        assertEquals("DataMessage", keepalive.get("type"));
        assertEquals("s2c", keepalive.get("dir"));
        assertFieldsContain(map("smb_direct.credits.requested", 255, "smb_direct.credits.granted", 3,
                "smb_direct.flags", 1, "smb_direct.flags.response_requested", 1, "smb_direct.remaining_length", 0,
                "smb_direct.data_offset", 0, "smb_direct.data_length", 0), keepalive);

        Map<String, Object> grant = fr.get(7);
        assertEquals("DataMessage", grant.get("type"));
        assertFieldsContain(map("smb_direct.credits.requested", 255, "smb_direct.credits.granted", 10,
                "smb_direct.flags", 0, "smb_direct.data_length", 0), grant);

        for (Map<String, Object> f : fr) {
            assertEquals(Boolean.TRUE, f.get("smb_direct"), () -> "not recognised as SMB Direct: " + f);
            assertEquals(List.of(), f.get("expert"), () -> "expert info on " + f);
            assertFalse((Boolean) f.get("malformed"), () -> "malformed: " + f);
        }
    }

    private static Map<Object, Object> subset(Map<?, ?> m, String... keys) {
        Map<Object, Object> out = new LinkedHashMap<>();
        for (String k : keys) {
            out.put(k, m.get(k));
        }
        return out;
    }
}
