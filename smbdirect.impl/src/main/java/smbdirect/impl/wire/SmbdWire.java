package smbdirect.impl.wire;

/**
 * Constants of the SMB Direct wire format ([MS-SMBD] 2.2, 3.1.1.1, 3.1.5).
 */
public final class SmbdWire {

    /** The only protocol version, SMB Direct 1.0 ([MS-SMBD] 1.7). */
    public static final int PROTOCOL_V1 = 0x0100;
    /** NTSTATUS STATUS_SUCCESS. */
    public static final int STATUS_SUCCESS = 0;
    /** NTSTATUS STATUS_NOT_SUPPORTED: version range excludes 0x0100 (R-3.1.5.6-04). */
    public static final int STATUS_NOT_SUPPORTED = 0xC00000BB;
    /** NTSTATUS STATUS_INSUFFICIENT_RESOURCES: no receive credits could be set up (R-3.1.5.6-17). */
    public static final int STATUS_INSUFFICIENT_RESOURCES = 0xC000009A;
    /** Data Transfer flag SMB_DIRECT_RESPONSE_REQUESTED ([MS-SMBD] 2.2.3). */
    public static final int FLAG_RESPONSE_REQUESTED = 0x0001;
    /** Smallest MaxReceiveSize a peer may advertise (R-3.1.5.6-07, R-3.1.5.7-03). */
    public static final int MIN_RECEIVE_SIZE = 128;
    /** Smallest MaxFragmentedSize a peer may advertise (R-3.1.5.6-08, R-3.1.5.7-04). */
    public static final int MIN_FRAGMENTED_SIZE = 131072;
    /** Size of the receive posted for the Negotiate Request / Response ([MS-SMBD] 3.1.4.1, 3.1.7.2). */
    public static final int INITIAL_RECEIVE_SIZE = 512;
    /** Size of the fixed Data Transfer header; also the size of an empty message. */
    public static final int DATA_HEADER_SIZE = 20;
    /** The recommended DataOffset of a Data Transfer message carrying payload (R-3.1.5.4-12). */
    public static final int DATA_OFFSET = 24;
    /** Size of a Negotiate Request ([MS-SMBD] 2.2.1). */
    public static final int NEGOTIATE_REQUEST_SIZE = 20;
    /** Size of a Negotiate Response ([MS-SMBD] 2.2.2). */
    public static final int NEGOTIATE_RESPONSE_SIZE = 32;
    /** Size of the IRD/ORD negotiate header of [MS-SMBD] 6.1. */
    public static final int IRD_ORD_HEADER_SIZE = 8;
    /** Largest value of an unsigned 32-bit field. */
    public static final long U32_MAX = 0xFFFF_FFFFL;
    /** Largest value of an unsigned 16-bit field. */
    public static final int U16_MAX = 0xFFFF;

    private SmbdWire() {
    }

    /** True when {@code status} has NTSTATUS severity ERROR (top two bits 11b). */
    public static boolean isErrorStatus(int status) {
        return (status >>> 30) == 3;
    }

    /** Formats a 32-bit NTSTATUS as {@code 0xC00000BB}. */
    public static String statusToString(int status) {
        return String.format("0x%08X", status);
    }
}
