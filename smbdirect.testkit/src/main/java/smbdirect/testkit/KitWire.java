package smbdirect.testkit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The [MS-SMBD] messages (2.2.1 to 2.2.3) as the test kit writes and reads them, and the rules it
 * holds the transport's messages to (3.1.5.6 to 3.1.5.8, with the stricter Windows reading of
 * fragment accounting, A-30 of the project's digest). Written from the specification on its own,
 * sharing nothing with the engine's codec: a peer that used the engine's codec could not notice a
 * mistake the two sides make alike. Stateless, static methods.
 */
final class KitWire {

    static final int V1 = 0x0100;
    static final int REQUEST_SIZE = 20;
    static final int RESPONSE_SIZE = 32;
    static final int HEADER_SIZE = 20;
    /** DataOffset a sender should use: the header and 4 bytes of padding (2.2.3). */
    static final int PAYLOAD_OFFSET = 24;
    static final int RESPONSE_REQUESTED = 0x0001;
    static final int STATUS_NOT_SUPPORTED = 0xC000_00BB;
    static final long RECEIVE_SIZE_FLOOR = 128;
    static final long FRAGMENTED_SIZE_FLOOR = 131_072;

    // 2.2.1 Negotiate Request
    static final int REQ_MIN_VERSION = 0;
    static final int REQ_MAX_VERSION = 2;
    static final int REQ_CREDITS_REQUESTED = 6;
    static final int REQ_PREFERRED_SEND_SIZE = 8;
    static final int REQ_MAX_RECEIVE_SIZE = 12;
    static final int REQ_MAX_FRAGMENTED_SIZE = 16;

    // 2.2.2 Negotiate Response
    static final int RSP_MIN_VERSION = 0;
    static final int RSP_MAX_VERSION = 2;
    static final int RSP_NEGOTIATED_VERSION = 4;
    static final int RSP_CREDITS_REQUESTED = 8;
    static final int RSP_CREDITS_GRANTED = 10;
    static final int RSP_STATUS = 12;
    static final int RSP_MAX_READ_WRITE_SIZE = 16;
    static final int RSP_PREFERRED_SEND_SIZE = 20;
    static final int RSP_MAX_RECEIVE_SIZE = 24;
    static final int RSP_MAX_FRAGMENTED_SIZE = 28;

    // 2.2.3 Data Transfer
    static final int DATA_CREDITS_REQUESTED = 0;
    static final int DATA_CREDITS_GRANTED = 2;
    static final int DATA_FLAGS = 4;
    static final int DATA_REMAINING_LENGTH = 8;
    static final int DATA_OFFSET = 12;
    static final int DATA_LENGTH = 16;

    private KitWire() {
    }

    private static ByteBuffer le(byte[] m) {
        return ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
    }

    static int u16(byte[] m, int at) {
        return le(m).getShort(at) & 0xFFFF;
    }

    static long u32(byte[] m, int at) {
        return le(m).getInt(at) & 0xFFFF_FFFFL;
    }

    /** A Negotiate Request for version 0x0100 (3.1.5.2). */
    static byte[] negotiateRequest(int creditsRequested, long preferredSendSize, long maxReceiveSize,
            long maxFragmentedSize) {
        byte[] m = new byte[REQUEST_SIZE];
        le(m).putShort(REQ_MIN_VERSION, (short) V1).putShort(REQ_MAX_VERSION, (short) V1)
                .putShort(REQ_CREDITS_REQUESTED, (short) creditsRequested)
                .putInt(REQ_PREFERRED_SEND_SIZE, (int) preferredSendSize)
                .putInt(REQ_MAX_RECEIVE_SIZE, (int) maxReceiveSize)
                .putInt(REQ_MAX_FRAGMENTED_SIZE, (int) maxFragmentedSize);
        return m;
    }

    /** A successful Negotiate Response for version 0x0100 (3.1.5.3). */
    static byte[] negotiateResponse(int creditsRequested, int creditsGranted, long maxReadWriteSize,
            long preferredSendSize, long maxReceiveSize, long maxFragmentedSize) {
        byte[] m = new byte[RESPONSE_SIZE];
        le(m).putShort(RSP_MIN_VERSION, (short) V1).putShort(RSP_MAX_VERSION, (short) V1)
                .putShort(RSP_NEGOTIATED_VERSION, (short) V1).putShort(RSP_CREDITS_REQUESTED, (short) creditsRequested)
                .putShort(RSP_CREDITS_GRANTED, (short) creditsGranted).putInt(RSP_STATUS, 0)
                .putInt(RSP_MAX_READ_WRITE_SIZE, (int) maxReadWriteSize)
                .putInt(RSP_PREFERRED_SEND_SIZE, (int) preferredSendSize)
                .putInt(RSP_MAX_RECEIVE_SIZE, (int) maxReceiveSize)
                .putInt(RSP_MAX_FRAGMENTED_SIZE, (int) maxFragmentedSize);
        return m;
    }

    /** A failed Negotiate Response: versions 0x0100, {@code status}, every other field 0 (3.1.5.3). */
    static byte[] negotiateFailure(int status) {
        byte[] m = new byte[RESPONSE_SIZE];
        le(m).putShort(RSP_MIN_VERSION, (short) V1).putShort(RSP_MAX_VERSION, (short) V1).putInt(RSP_STATUS, status);
        return m;
    }

    /**
     * A Data Transfer message: the 20-byte header alone without payload (DataOffset 0), else the
     * header, 4 bytes of zero padding and {@code length} bytes of {@code payload} from {@code from}.
     */
    static byte[] data(int creditsRequested, int creditsGranted, int flags, long remainingDataLength, byte[] payload,
            int from, int length) {
        byte[] m = new byte[length == 0 ? HEADER_SIZE : PAYLOAD_OFFSET + length];
        le(m).putShort(DATA_CREDITS_REQUESTED, (short) creditsRequested)
                .putShort(DATA_CREDITS_GRANTED, (short) creditsGranted).putShort(DATA_FLAGS, (short) flags)
                .putInt(DATA_REMAINING_LENGTH, (int) remainingDataLength)
                .putInt(DATA_OFFSET, length == 0 ? 0 : PAYLOAD_OFFSET).putInt(DATA_LENGTH, length);
        if (length > 0) {
            System.arraycopy(payload, from, m, PAYLOAD_OFFSET, length);
        }
        return m;
    }

    private static String broken(String rule, String field, long value, String why) {
        return rule + ": " + field + " " + value + " " + why;
    }

    /** The first rule of 3.1.5.6 a received Negotiate Request breaks, or null. */
    static String checkNegotiateRequest(byte[] m) {
        if (m.length < REQUEST_SIZE) {
            return broken("R-3.1.5.6-01", "length", m.length, "is less than 20");
        }
        int min = u16(m, REQ_MIN_VERSION);
        int max = u16(m, REQ_MAX_VERSION);
        if (min > V1 || max < V1) {
            return "R-3.1.5.6-03: [MinVersion, MaxVersion] = [0x" + Integer.toHexString(min) + ", 0x"
                    + Integer.toHexString(max) + "] leaves out 0x0100";
        }
        if (u16(m, REQ_CREDITS_REQUESTED) == 0) {
            return broken("R-3.1.5.6-06", "CreditsRequested", 0, "is not above 0");
        }
        if (u32(m, REQ_MAX_RECEIVE_SIZE) < RECEIVE_SIZE_FLOOR) {
            return broken("R-3.1.5.6-07", "MaxReceiveSize", u32(m, REQ_MAX_RECEIVE_SIZE), "is less than 128");
        }
        if (u32(m, REQ_MAX_FRAGMENTED_SIZE) < FRAGMENTED_SIZE_FLOOR) {
            return broken("R-3.1.5.6-08", "MaxFragmentedSize", u32(m, REQ_MAX_FRAGMENTED_SIZE), "is less than 131072");
        }
        return null;
    }

    /** The first rule of 3.1.5.7 a received Negotiate Response breaks, or null. */
    static String checkNegotiateResponse(byte[] m, long localMaxReceiveSize) {
        if (m.length < RESPONSE_SIZE) {
            return broken("R-3.1.5.7-01", "length", m.length, "is less than 32");
        }
        if (u32(m, RSP_STATUS) != 0) {
            return broken("R-3.1.5.7-08", "Status", u32(m, RSP_STATUS), "is not STATUS_SUCCESS");
        }
        if (u16(m, RSP_NEGOTIATED_VERSION) != V1) {
            return broken("R-3.1.5.7-02", "NegotiatedVersion", u16(m, RSP_NEGOTIATED_VERSION), "is not 0x0100");
        }
        if (u32(m, RSP_MAX_RECEIVE_SIZE) < RECEIVE_SIZE_FLOOR) {
            return broken("R-3.1.5.7-03", "MaxReceiveSize", u32(m, RSP_MAX_RECEIVE_SIZE), "is less than 128");
        }
        if (u32(m, RSP_MAX_FRAGMENTED_SIZE) < FRAGMENTED_SIZE_FLOOR) {
            return broken("R-3.1.5.7-04", "MaxFragmentedSize", u32(m, RSP_MAX_FRAGMENTED_SIZE), "is less than 131072");
        }
        if (u16(m, RSP_CREDITS_GRANTED) == 0) {
            return broken("R-3.1.5.7-05", "CreditsGranted", 0, "is not above 0");
        }
        if (u16(m, RSP_CREDITS_REQUESTED) == 0) {
            return broken("R-3.1.5.7-06", "CreditsRequested", 0, "is not above 0");
        }
        if (u32(m, RSP_PREFERRED_SEND_SIZE) > localMaxReceiveSize) {
            return broken("R-3.1.5.7-07", "PreferredSendSize", u32(m, RSP_PREFERRED_SEND_SIZE),
                    "is more than our MaxReceiveSize " + localMaxReceiveSize);
        }
        return null;
    }

    /**
     * The first rule a received Data Transfer message breaks, or null: 3.1.5.8 (length, credits,
     * alignment and bounds of the payload, the reassembly limit), Flags with no bit but
     * SMB_DIRECT_RESPONSE_REQUESTED (2.2.3), and the fragment accounting: once a message is under
     * way ({@code fragmentRemaining} > 0), each further fragment's DataLength plus
     * RemainingDataLength must be what was still to come, so that an empty message between
     * fragments is caught (R-3.1.5.8-18, A-27).
     *
     * @param fragmentRemaining the bytes of the message under way still to come, 0 when none is
     */
    static String checkDataTransfer(byte[] m, long maxFragmentedSize, long fragmentRemaining) {
        if (m.length < HEADER_SIZE) {
            return broken("R-3.1.5.8-01", "length", m.length, "is less than 20");
        }
        if (u16(m, DATA_CREDITS_REQUESTED) == 0) {
            return broken("R-3.1.5.8-02", "CreditsRequested", 0, "is less than 1");
        }
        long offset = u32(m, DATA_OFFSET);
        long length = u32(m, DATA_LENGTH);
        long remaining = u32(m, DATA_REMAINING_LENGTH);
        if (offset % 8 != 0) {
            return broken("R-3.1.5.8-03", "DataOffset", offset, "is not a multiple of 8");
        }
        if (offset + length > m.length) {
            return broken("R-3.1.5.8-04", "DataOffset+DataLength", offset + length, "is beyond the " + m.length
                    + " bytes received");
        }
        if (length + remaining > maxFragmentedSize) {
            return broken("R-3.1.5.8-05", "DataLength+RemainingDataLength", length + remaining,
                    "is more than our MaxFragmentedSize " + maxFragmentedSize);
        }
        int flags = u16(m, DATA_FLAGS);
        if ((flags & ~RESPONSE_REQUESTED) != 0) {
            return broken("2.2.3", "Flags", flags, "has a bit other than SMB_DIRECT_RESPONSE_REQUESTED");
        }
        if (fragmentRemaining > 0 && length + remaining != fragmentRemaining) {
            return broken(remaining == 0 ? "R-3.1.5.8-18" : "R-3.1.5.8-16", "DataLength+RemainingDataLength",
                    length + remaining, "is not the " + fragmentRemaining + " bytes still to come of the message"
                            + " under way");
        }
        return null;
    }
}
