package smbdirect.interop.vm;

import java.util.List;
import java.util.Map;

/**
 * One iWARP PDU as Wireshark decoded it from a capture: an MPA Request, an MPA Reply or an FPDU,
 * with the fields of the MPA, DDP/RDMAP, SMB Direct and SMB2 dissectors that decoded it.
 *
 * @param frame the capture frame the PDU ended in
 * @param stream tshark's TCP stream index (one per connection)
 * @param srcPort the sending side's TCP port
 * @param dstPort the receiving side's TCP port
 * @param kind what MPA saw
 * @param fields field name to the value Wireshark shows ({@code show}), first occurrence in this PDU
 * @param values field name to the field's raw bytes in hex ({@code value}), first occurrence
 * @param crc Wireshark's CRC verdict for an FPDU: {@code "good"}, {@code "bad"}, or {@code "none"}
 *     when the connection did not negotiate CRC
 * @param problems malformed-packet and expert items Wireshark attached to this PDU, each prefixed with
 *     the innermost protocol it sits in ({@code "spnego: ..."}); empty when clean
 */
public record CapturedPdu(int frame, int stream, int srcPort, int dstPort, Kind kind, Map<String, String> fields,
        Map<String, String> values, String crc, List<String> problems) {

    /** The MPA message types. */
    public enum Kind {
        MPA_REQUEST, MPA_REPLY, FPDU
    }

    /** RDMAP opcodes (RFC 5040 §4.3) by their number. */
    private static final String[] OPCODES = {"Write", "Read Request", "Read Response", "Send", "Send Invalidate",
        "Send SE", "Send SE Invalidate", "Terminate"};

    public CapturedPdu {
        fields = Map.copyOf(fields);
        values = Map.copyOf(values);
        problems = List.copyOf(problems);
    }

    /** The shown value of {@code field}, or null when this PDU has none. */
    public String field(String field) {
        return fields.get(field);
    }

    /** The shown value of {@code field} as a number (decimal or 0x hex). */
    public long number(String field) {
        String v = fields.get(field);
        if (v == null) {
            throw new AssertionError("frame " + frame + " has no " + field + ": " + this);
        }
        return v.startsWith("0x") ? Long.parseUnsignedLong(v.substring(2), 16) : Long.parseLong(v);
    }

    /** Whether this PDU has a value for {@code field}. */
    public boolean has(String field) {
        return fields.containsKey(field);
    }

    /** The RDMAP operation of an FPDU ("Send", "Write", ...), or the MPA frame's kind. */
    public String operation() {
        if (kind != Kind.FPDU) {
            return kind == Kind.MPA_REQUEST ? "MPA Request" : "MPA Reply";
        }
        String op = fields.get("iwarp_rdma.opcode");
        if (op == null) {
            return "FPDU without RDMAP";
        }
        int n = Integer.decode(op);
        return n < OPCODES.length ? OPCODES[n] : "opcode " + op;
    }

    /** Whether the DDP segment is the last of its message (always true for MPA frames). */
    public boolean last() {
        return kind != Kind.FPDU || "1".equals(fields.get("iwarp_ddp.last_flag"));
    }

    /** MPA Request or Reply private data (RFC 6581 word included), in hex; empty when there is none. */
    public String privateData() {
        return values.getOrDefault("iwarp_mpa.privatedata", "");
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder().append('#').append(frame).append(" s").append(stream).append(' ')
                .append(srcPort).append("->").append(dstPort).append(' ').append(operation());
        if (kind == Kind.FPDU) {
            b.append(" ulpdu ").append(fields.get("iwarp_mpa.ulpdulength"));
            if (fields.containsKey("iwarp_ddp.qn")) {
                b.append(" qn ").append(fields.get("iwarp_ddp.qn")).append(" msn ").append(fields.get("iwarp_ddp.msn"))
                        .append(" mo ").append(fields.get("iwarp_ddp.mo"));
            }
            if (fields.containsKey("iwarp_ddp.stag")) {
                b.append(" stag ").append(fields.get("iwarp_ddp.stag")).append(" to ")
                        .append(fields.get("iwarp_ddp.tagged_offset"));
            }
            b.append(last() ? " L" : "").append(" crc ").append(crc);
        } else {
            b.append(" crc=").append(fields.get("iwarp_mpa.crc_flag")).append(" rev ")
                    .append(fields.get("iwarp_mpa.rev")).append(" pd ").append(privateData());
        }
        if (!problems.isEmpty()) {
            b.append(" PROBLEMS ").append(problems);
        }
        return b.toString();
    }
}
