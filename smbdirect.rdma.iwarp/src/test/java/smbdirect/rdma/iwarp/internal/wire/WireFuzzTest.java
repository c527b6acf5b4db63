package smbdirect.rdma.iwarp.internal.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.zip.CRC32C;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzzing of the MPA, DDP and RDMAP codecs of this package. Under plain
 * {@code mvn verify} each target replays its committed corpus ({@code WireFuzzTestInputs/<method>/},
 * seeded with Linux siw's real frames from {@code tools/siw-vm/pcaps}); with {@code JAZZER_FUZZ=1}
 * it fuzzes (RELIABILITY.md §7).
 *
 * <p>Invariants per target:
 * <ul>
 * <li>no exception escapes a decoder for any content, offset, heap or direct buffer, except the
 * documented {@link IndexOutOfBoundsException} when the field lies outside the buffer's limit, and
 * no decoder moves position or limit;</li>
 * <li>every decoded field equals an independent reference computed from the raw bytes here (RFC 5044
 * §4.1, §6.1, §7.1, RFC 6581 §5, RFC 5041 §4, RFC 5040 §4), the CRC32C by a bitwise reference of
 * the Castagnoli polynomial, the Terminate verdict by the table of iwarp.md §5.6;</li>
 * <li>re-encoding the decoded fields gives the same bytes (reserved bits, which receivers ignore
 * and senders write as 0, masked).</li>
 * </ul>
 */
class WireFuzzTest {

    private static final byte[] KEY_REQUEST = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEY_REPLY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    /** Fuzzed bytes at a fuzzed offset in a heap or direct buffer; {@code raw} is what the buffer holds. */
    private record Input(ByteBuffer buf, byte[] raw, int off) {
    }

    private static Input input(FuzzedDataProvider data) {
        int off = data.consumeInt(0, 7);
        boolean direct = data.consumeBoolean();
        byte[] body = data.consumeRemainingAsBytes();
        byte[] raw = new byte[off + body.length];
        System.arraycopy(body, 0, raw, off, body.length);
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(raw.length) : ByteBuffer.allocate(raw.length);
        b.put(raw).clear();
        return new Input(b, raw, off);
    }

    private static int u8(byte[] r, int at) {
        return r[at] & 0xFF;
    }

    private static int u16(byte[] r, int at) {
        return u8(r, at) << 8 | u8(r, at + 1);
    }

    private static int u32(byte[] r, int at) {
        return u16(r, at) << 16 | u16(r, at + 2);
    }

    private static long u64(byte[] r, int at) {
        return (u32(r, at) & 0xFFFF_FFFFL) << 32 | (u32(r, at + 4) & 0xFFFF_FFFFL);
    }

    private static void assertUntouched(Input in) {
        assertEquals(0, in.buf.position(), "position unchanged");
        assertEquals(in.raw.length, in.buf.limit(), "limit unchanged");
    }

    // ---------------------------------------------------------------- MPA Request / Reply (RFC 5044 §7.1)

    @FuzzTest(maxDuration = "3m", maxExecutions = 10_000_000)
    void mpaFrame(FuzzedDataProvider data) {
        Input in = input(data);
        byte[] r = in.raw;
        int off = in.off;
        if (r.length < off + MpaFrame.HEADER_SIZE) {
            assertThrows(IndexOutOfBoundsException.class, () -> MpaFrame.pdLength(in.buf, off));
            return;
        }
        byte[] key = Arrays.copyOfRange(r, off, off + 16);
        MpaFrame.Key expectedKey = Arrays.equals(key, KEY_REQUEST) ? MpaFrame.Key.REQUEST
                : Arrays.equals(key, KEY_REPLY) ? MpaFrame.Key.REPLY : MpaFrame.Key.UNKNOWN;
        assertEquals(expectedKey, MpaFrame.key(in.buf, off));
        assertEquals(u8(r, off + 16), MpaFrame.flags(in.buf, off));
        assertEquals(u8(r, off + 17), MpaFrame.revision(in.buf, off));
        assertEquals(u16(r, off + 18), MpaFrame.pdLength(in.buf, off));
        assertTrue(MpaFrame.describeFlags(MpaFrame.flags(in.buf, off)).startsWith(
                ((r[off + 16] & 0x80) != 0 ? "M" : "-") + ((r[off + 16] & 0x40) != 0 ? "C" : "-")
                        + ((r[off + 16] & 0x20) != 0 ? "R" : "-") + ((r[off + 16] & 0x10) != 0 ? "E" : "-")));
        boolean word = r.length >= off + MpaFrame.HEADER_SIZE + MpaV2Control.SIZE;
        int w = off + MpaFrame.HEADER_SIZE;
        if (word) {
            // RFC 6581 §5: A|B|IRD(14), C|D|ORD(14)
            assertEquals(u16(r, w) & 0x3FFF, MpaV2Control.ird(in.buf, w));
            assertEquals(u16(r, w + 2) & 0x3FFF, MpaV2Control.ord(in.buf, w));
            assertEquals(u16(r, w) & 0xC000, MpaV2Control.irdFlags(in.buf, w));
            assertEquals(u16(r, w + 2) & 0xC000, MpaV2Control.ordFlags(in.buf, w));
        } else {
            assertThrows(IndexOutOfBoundsException.class, () -> MpaV2Control.ord(in.buf, w));
        }
        assertUntouched(in);
        if (expectedKey == MpaFrame.Key.UNKNOWN) {
            return;
        }
        ByteBuffer out = ByteBuffer.allocate(MpaFrame.HEADER_SIZE + MpaV2Control.SIZE);
        MpaFrame.encode(out, 0, expectedKey == MpaFrame.Key.REQUEST, MpaFrame.flags(in.buf, off),
                MpaFrame.revision(in.buf, off), MpaFrame.pdLength(in.buf, off));
        assertArrayEquals(Arrays.copyOfRange(r, off, off + MpaFrame.HEADER_SIZE),
                Arrays.copyOf(out.array(), MpaFrame.HEADER_SIZE), "re-encoded MPA frame header");
        if (word) {
            MpaV2Control.encode(out, MpaFrame.HEADER_SIZE, MpaV2Control.ird(in.buf, w), MpaV2Control.ord(in.buf, w),
                    MpaV2Control.irdFlags(in.buf, w), MpaV2Control.ordFlags(in.buf, w));
            assertArrayEquals(Arrays.copyOfRange(r, w, w + 4),
                    Arrays.copyOfRange(out.array(), MpaFrame.HEADER_SIZE, MpaFrame.HEADER_SIZE + 4), "re-encoded word");
        }
    }

    // ---------------------------------------------------------------- FPDU, DDP and RDMAP headers

    /** CRC32C (Castagnoli, reflected polynomial 0x82F63B78), bit by bit: the reference of RFC 5044 §6.1. */
    static int referenceCrc32c(byte[] b, int off, int length) {
        int crc = 0xFFFF_FFFF;
        for (int i = off; i < off + length; i++) {
            crc ^= b[i] & 0xFF;
            for (int k = 0; k < 8; k++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x82F6_3B78 : crc >>> 1;
            }
        }
        return ~crc;
    }

    @FuzzTest(maxDuration = "3m", maxExecutions = 10_000_000)
    void fpdu(FuzzedDataProvider data) {
        boolean crcOn = data.consumeBoolean();
        Input in = input(data);
        byte[] r = in.raw;
        int off = in.off;
        int n = r.length - off;
        if (n < Fpdu.LENGTH_SIZE) {
            assertThrows(IndexOutOfBoundsException.class, () -> Fpdu.ulpduLength(in.buf, off));
            return;
        }
        int ulpdu = u16(r, off);
        assertEquals(ulpdu, Fpdu.ulpduLength(in.buf, off));
        int pad = (4 - (ulpdu + 2) % 4) % 4;
        assertEquals(pad, Fpdu.pad(ulpdu));
        assertEquals(2 + ulpdu + pad + 4, Fpdu.size(ulpdu));
        assertEquals(0, Fpdu.size(ulpdu) % 4, "FPDUs end 4-aligned (RFC 5044 §4.1)");
        if (n >= 4) {
            int control = Ddp.control(in.buf, off);
            int rdmap = Rdmap.control(in.buf, off);
            assertEquals(u8(r, off + 2), control);
            assertEquals((r[off + 2] & 0x80) != 0, Ddp.isTagged(control));
            assertEquals((r[off + 2] & 0x40) != 0, Ddp.isLast(control));
            assertEquals(r[off + 2] & 0x03, Ddp.version(control));
            assertEquals(u8(r, off + 3) >>> 6, Rdmap.version(rdmap));
            int opcode = r[off + 3] & 0x0F;
            assertEquals(opcode, Rdmap.opcode(rdmap));
            assertEquals(opcode >= 3 && opcode <= 6, Rdmap.isSend(opcode));
            assertEquals(opcode == 4 || opcode == 6, Rdmap.invalidates(opcode));
            assertEquals(opcode == 0 || opcode == 2, Rdmap.isTaggedOpcode(opcode));
            assertTrue(Rdmap.name(opcode).length() > 0);
        }
        if (n >= Ddp.TAGGED_HEADER) {
            assertEquals(u32(r, off + 4), Ddp.stag(in.buf, off));
            assertEquals(u64(r, off + 8), Ddp.taggedOffset(in.buf, off));
            assertEquals(u32(r, off + 4), Ddp.invalidateStag(in.buf, off));
            assertEquals(u32(r, off + 8), Ddp.qn(in.buf, off));
            assertEquals(u32(r, off + 12), Ddp.msn(in.buf, off));
            ByteBuffer out = ByteBuffer.allocate(Ddp.TAGGED_HEADER);
            Ddp.putTagged(out, 0, ulpdu, Ddp.isLast(u8(r, off + 2)), Rdmap.opcode(u8(r, off + 3)), Ddp.stag(in.buf, off),
                    Ddp.taggedOffset(in.buf, off));
            byte[] expected = Arrays.copyOfRange(r, off, off + Ddp.TAGGED_HEADER);
            expected[2] = (byte) (0x80 | (expected[2] & 0x40) | 1); // T set, reserved 0, DV 1
            expected[3] = (byte) (0x40 | (expected[3] & 0x0F)); // RV 1, reserved 0
            assertArrayEquals(expected, out.array(), "re-encoded tagged header");
        } else if (n < Ddp.TAGGED_HEADER) {
            assertThrows(IndexOutOfBoundsException.class, () -> Ddp.taggedOffset(in.buf, off));
        }
        if (n >= Ddp.UNTAGGED_HEADER) {
            assertEquals(u32(r, off + 16), Ddp.mo(in.buf, off));
            ByteBuffer out = ByteBuffer.allocate(Ddp.UNTAGGED_HEADER);
            Ddp.putUntagged(out, 0, ulpdu, Ddp.isLast(u8(r, off + 2)), Rdmap.opcode(u8(r, off + 3)),
                    Ddp.invalidateStag(in.buf, off), Ddp.qn(in.buf, off), Ddp.msn(in.buf, off), Ddp.mo(in.buf, off));
            byte[] expected = Arrays.copyOfRange(r, off, off + Ddp.UNTAGGED_HEADER);
            expected[2] = (byte) ((expected[2] & 0x40) | 1); // T clear, reserved 0, DV 1
            expected[3] = (byte) (0x40 | (expected[3] & 0x0F));
            assertArrayEquals(expected, out.array(), "re-encoded untagged header");
        }
        if (n >= Rdmap.READ_REQUEST_HEADER) {
            // RFC 5040 §4.4: sink STag, sink TO, size, source STag, source TO after the untagged header
            assertEquals(u32(r, off + 20), Rdmap.sinkStag(in.buf, off));
            assertEquals(u64(r, off + 24), Rdmap.sinkTo(in.buf, off));
            assertEquals(u32(r, off + 32) & 0xFFFF_FFFFL, Rdmap.readSize(in.buf, off));
            assertEquals(u32(r, off + 36), Rdmap.sourceStag(in.buf, off));
            assertEquals(u64(r, off + 40), Rdmap.sourceTo(in.buf, off));
            ByteBuffer out = ByteBuffer.allocate(Rdmap.READ_REQUEST_HEADER);
            Rdmap.putReadRequest(out, 0, Rdmap.sinkStag(in.buf, off), Rdmap.sinkTo(in.buf, off),
                    (int) Rdmap.readSize(in.buf, off), Rdmap.sourceStag(in.buf, off), Rdmap.sourceTo(in.buf, off));
            assertArrayEquals(Arrays.copyOfRange(r, off + 20, off + 48), Arrays.copyOfRange(out.array(), 20, 48),
                    "re-encoded Read Request body");
        }
        assertUntouched(in);
        // framing: the fuzzed ULPDU (as far as present) sealed into a whole FPDU, CRC against the reference
        int body = Math.min(ulpdu, n - 2);
        byte[] whole = new byte[Fpdu.size(body)];
        System.arraycopy(r, off + 2, whole, 2, body);
        ByteBuffer sealed = ByteBuffer.wrap(whole.clone());
        Fpdu.putUlpduLength(sealed, 0, body);
        int size = Fpdu.seal(sealed, 0, crcOn ? new CRC32C() : null);
        assertEquals(whole.length, size);
        byte[] s = sealed.array();
        for (int i = 2 + body; i < 2 + body + Fpdu.pad(body); i++) {
            assertEquals(0, s[i], "PAD is zero");
        }
        int crcAt = 2 + body + Fpdu.pad(body);
        int expectedCrc = crcOn ? referenceCrc32c(s, 0, crcAt) : 0;
        assertEquals(expectedCrc, Fpdu.crcField(sealed, crcAt));
        // least significant byte first on the wire (iwarp.md §3.1, as siw and Wireshark)
        assertEquals((byte) expectedCrc, s[crcAt]);
        assertEquals((byte) (expectedCrc >>> 24), s[crcAt + 3]);
        assertEquals(referenceCrc32c(s, 0, crcAt), Fpdu.crc32c(new CRC32C(), sealed, 0, crcAt));
    }

    // ---------------------------------------------------------------- Terminate (RFC 5040 §4.8)

    /** Layer/type/code triples iwarp.md §5.6 lists, plus "Unspecified" 0xFF of RDMAP types 1 and 2 (RFC 5040 §7.2). */
    private static final Set<Integer> DEFINED = Set.of(
            0x01_00, 0x01_01, 0x01_02, 0x01_03, 0x01_04, 0x01_09, 0x01_FF,
            0x02_05, 0x02_06, 0x02_07, 0x02_08, 0x02_09, 0x02_FF,
            0x1_1_00, 0x1_1_01, 0x1_1_02, 0x1_1_03, 0x1_1_04,
            0x1_2_01, 0x1_2_02, 0x1_2_03, 0x1_2_04, 0x1_2_05, 0x1_2_06,
            0x2_0_01, 0x2_0_02, 0x2_0_03, 0x2_0_04, 0x2_0_05, 0x2_0_06, 0x2_0_07);

    /**
     * Whether layer/type/code is defined: the table, and any code of a catastrophic type (RDMAP and
     * DDP Local Catastrophic, whose code the RFCs leave open) and of DDP type 3 (reserved for the LLP).
     */
    private static boolean referenceDefined(int layer, int type, int code) {
        if (layer == 0 && type == 0 || layer == 1 && (type == 0 || type == 3)) {
            return true;
        }
        return DEFINED.contains(layer << 12 | type << 8 | code);
    }

    @FuzzTest(maxDuration = "3m", maxExecutions = 10_000_000)
    void terminate(FuzzedDataProvider data) {
        int word = data.consumeInt();
        Terminate.Control c = Terminate.decodeControl(word);
        // RFC 5040 §4.8 layout: Layer(4) EType(4) Code(8) M D R Reserved(13)
        int layer = word >>> 28;
        int type = (word >>> 24) & 0xF;
        int code = (word >>> 16) & 0xFF;
        boolean rfc = referenceDefined(layer, type, code) && (word & 0x1FFF) == 0;
        // Linux siw on x86 (iwarp.md §5.5): first byte EType<<4 | Layer, M/D/R bits 0..2 of the third byte
        int siwLayer = (word >>> 24) & 0xF;
        int siwType = word >>> 28;
        int third = (word >>> 8) & 0xFF;
        boolean siw = referenceDefined(siwLayer, siwType, code) && (third & 0xF8) == 0 && (word & 0xFF) == 0;
        assertEquals(rfc || siw, c.consistent(), c::toString);
        assertEquals(!rfc && siw, c.siwLayout(), c::toString);
        assertTrue(!c.consistent() || c.error().isDefined(), c::toString);
        if (c.siwLayout()) {
            assertEquals(new TerminateError(siwLayer, siwType, code), c.error());
            assertEquals(((third & 1) != 0 ? Terminate.FLAG_M : 0) | ((third & 2) != 0 ? Terminate.FLAG_D : 0)
                    | ((third & 4) != 0 ? Terminate.FLAG_R : 0), c.flags());
            int back = siwType << 28 | siwLayer << 24 | code << 16 | (c.hasFlag(Terminate.FLAG_M) ? 0x100 : 0)
                    | (c.hasFlag(Terminate.FLAG_D) ? 0x200 : 0) | (c.hasFlag(Terminate.FLAG_R) ? 0x400 : 0);
            assertEquals(word, back, "siw layout round trip");
        } else {
            assertEquals(new TerminateError(layer, type, code), c.error());
            assertEquals(word & 0xE000, c.flags());
            if (rfc) {
                assertEquals(word, Terminate.controlWord(c.error(), c.flags()), "RFC layout round trip");
            }
        }
        assertTrue(c.toString().length() > 0);
        assertTrue(c.error().layerName().length() > 0 && c.error().typeName().length() > 0
                && c.error().codeName().length() > 0);
        if (!c.consistent()) {
            return; // never sent: the provider sends defined errors only, and an undefined one may read back as siw's
        }
        // a whole Terminate FPDU of this error with a fuzzed copied header reads back field by field
        byte[] copied = data.consumeBytes(Rdmap.READ_REQUEST_HEADER - 2);
        boolean readRequest = data.consumeBoolean() && copied.length > 0;
        int segmentLength = data.consumeInt(0, 0xFFFF);
        boolean crcOn = data.consumeBoolean();
        ByteBuffer out = ByteBuffer.allocate(128);
        int size = Terminate.encode(out, 0, c.error(), ByteBuffer.wrap(copied), 0, copied.length, segmentLength,
                readRequest, crcOn ? new CRC32C() : null);
        byte[] o = out.array();
        int ulpdu = Terminate.BASE_ULPDU + (copied.length > 0 ? 2 + copied.length : 0);
        assertEquals(Fpdu.size(ulpdu), size);
        assertEquals(ulpdu, u16(o, 0));
        assertEquals(0x41, u8(o, 2), "untagged, L, DV 1");
        assertEquals(0x47, u8(o, 3), "RV 1, Terminate");
        assertEquals(2, u32(o, 8), "QN 2");
        assertEquals(1, u32(o, 12), "MSN 1");
        assertEquals(0, u32(o, 16), "MO 0");
        Terminate.Control back = Terminate.decodeControl(u32(o, Terminate.CONTROL));
        assertEquals(c.error(), back.error());
        int flags = copied.length > 0 ? Terminate.FLAG_M | Terminate.FLAG_D | (readRequest ? Terminate.FLAG_R : 0) : 0;
        assertEquals(flags, back.flags());
        if (copied.length > 0) {
            assertEquals(segmentLength, u16(o, Terminate.SEGMENT_LENGTH));
            assertArrayEquals(copied, Arrays.copyOfRange(o, Terminate.COPIED_HEADER, Terminate.COPIED_HEADER
                    + copied.length));
        }
        int crcAt = size - Fpdu.CRC_SIZE;
        assertEquals(crcOn ? referenceCrc32c(o, 0, crcAt) : 0, Fpdu.crcField(out, crcAt));
    }
}
