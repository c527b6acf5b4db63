package smbdirect.impl.wire;

import java.nio.ByteBuffer;

/**
 * SMB Direct Negotiate Response ([MS-SMBD] 2.2.2), 32 bytes, sent once by the passive side.
 *
 * <p>Static codec over a {@link ByteBuffer} at an absolute offset: works whatever the buffer's
 * byte order is, never changes position or limit and allocates nothing on the success path.
 * Thread-safe (stateless); the caller owns the buffer.
 *
 * <pre>
 * 0x00 MinVersion u16  0x02 MaxVersion u16  0x04 NegotiatedVersion u16  0x06 Reserved u16
 * 0x08 CreditsRequested u16  0x0A CreditsGranted u16  0x0C Status u32  0x10 MaxReadWriteSize u32
 * 0x14 PreferredSendSize u32  0x18 MaxReceiveSize u32  0x1C MaxFragmentedSize u32
 * </pre>
 */
public final class NegotiateResponse {

    /** Offset of MinVersion. */
    public static final int MIN_VERSION = 0x00;
    /** Offset of MaxVersion. */
    public static final int MAX_VERSION = 0x02;
    /** Offset of NegotiatedVersion. */
    public static final int NEGOTIATED_VERSION = 0x04;
    /** Offset of Reserved. */
    public static final int RESERVED = 0x06;
    /** Offset of CreditsRequested. */
    public static final int CREDITS_REQUESTED = 0x08;
    /** Offset of CreditsGranted. */
    public static final int CREDITS_GRANTED = 0x0A;
    /** Offset of Status. */
    public static final int STATUS = 0x0C;
    /** Offset of MaxReadWriteSize. */
    public static final int MAX_READ_WRITE_SIZE = 0x10;
    /** Offset of PreferredSendSize. */
    public static final int PREFERRED_SEND_SIZE = 0x14;
    /** Offset of MaxReceiveSize. */
    public static final int MAX_RECEIVE_SIZE = 0x18;
    /** Offset of MaxFragmentedSize. */
    public static final int MAX_FRAGMENTED_SIZE = 0x1C;

    private NegotiateResponse() {
    }

    /**
     * Writes the 32-byte response at {@code off} (R-3.1.5.3-02..05, -09..-15; Reserved is written
     * as 0). Values are written as given so tests can build out-of-spec responses.
     *
     * @throws IllegalArgumentException when a value does not fit its unsigned field
     * @throws IndexOutOfBoundsException when the 32 bytes do not fit below the limit
     */
    public static void encode(ByteBuffer b, int off, int minVersion, int maxVersion, int negotiatedVersion,
            int creditsRequested, int creditsGranted, int status, long maxReadWriteSize, long preferredSendSize,
            long maxReceiveSize, long maxFragmentedSize) {
        Le.requireU16("MinVersion", minVersion);
        Le.requireU16("MaxVersion", maxVersion);
        Le.requireU16("NegotiatedVersion", negotiatedVersion);
        Le.requireU16("CreditsRequested", creditsRequested);
        Le.requireU16("CreditsGranted", creditsGranted);
        Le.requireU32("MaxReadWriteSize", maxReadWriteSize);
        Le.requireU32("PreferredSendSize", preferredSendSize);
        Le.requireU32("MaxReceiveSize", maxReceiveSize);
        Le.requireU32("MaxFragmentedSize", maxFragmentedSize);
        Le.requireRegion(b, off, SmbdWire.NEGOTIATE_RESPONSE_SIZE);
        Le.putU16(b, off + MIN_VERSION, minVersion);
        Le.putU16(b, off + MAX_VERSION, maxVersion);
        Le.putU16(b, off + NEGOTIATED_VERSION, negotiatedVersion);
        Le.putU16(b, off + RESERVED, 0);
        Le.putU16(b, off + CREDITS_REQUESTED, creditsRequested);
        Le.putU16(b, off + CREDITS_GRANTED, creditsGranted);
        Le.putU32(b, off + STATUS, Integer.toUnsignedLong(status));
        Le.putU32(b, off + MAX_READ_WRITE_SIZE, maxReadWriteSize);
        Le.putU32(b, off + PREFERRED_SEND_SIZE, preferredSendSize);
        Le.putU32(b, off + MAX_RECEIVE_SIZE, maxReceiveSize);
        Le.putU32(b, off + MAX_FRAGMENTED_SIZE, maxFragmentedSize);
    }

    /**
     * Writes a failure response (R-3.1.5.3-02..06): MinVersion = MaxVersion = 0x0100, Status =
     * {@code status}, every other field 0.
     *
     * @throws IllegalArgumentException when {@code status} is not an error-severity NTSTATUS
     */
    public static void encodeFailure(ByteBuffer b, int off, int status) {
        if (!SmbdWire.isErrorStatus(status)) {
            throw new IllegalArgumentException("Status=" + SmbdWire.statusToString(status)
                    + " is not an error-severity NTSTATUS (R-3.1.5.6-17)");
        }
        encode(b, off, SmbdWire.PROTOCOL_V1, SmbdWire.PROTOCOL_V1, 0, 0, 0, status, 0, 0, 0, 0);
    }

    /** MinVersion (u16). */
    public static int minVersion(ByteBuffer b, int off) {
        return Le.u16(b, off + MIN_VERSION);
    }

    /** MaxVersion (u16). */
    public static int maxVersion(ByteBuffer b, int off) {
        return Le.u16(b, off + MAX_VERSION);
    }

    /** NegotiatedVersion (u16). */
    public static int negotiatedVersion(ByteBuffer b, int off) {
        return Le.u16(b, off + NEGOTIATED_VERSION);
    }

    /** Reserved (u16); receivers ignore it (R-2.2.2-07). */
    public static int reserved(ByteBuffer b, int off) {
        return Le.u16(b, off + RESERVED);
    }

    /** CreditsRequested (u16). */
    public static int creditsRequested(ByteBuffer b, int off) {
        return Le.u16(b, off + CREDITS_REQUESTED);
    }

    /** CreditsGranted (u16). */
    public static int creditsGranted(ByteBuffer b, int off) {
        return Le.u16(b, off + CREDITS_GRANTED);
    }

    /** Status as raw NTSTATUS bits (e.g. {@code 0xC00000BB}, negative as an int). */
    public static int status(ByteBuffer b, int off) {
        return Le.i32(b, off + STATUS);
    }

    /** MaxReadWriteSize (u32). */
    public static long maxReadWriteSize(ByteBuffer b, int off) {
        return Le.u32(b, off + MAX_READ_WRITE_SIZE);
    }

    /** PreferredSendSize (u32). */
    public static long preferredSendSize(ByteBuffer b, int off) {
        return Le.u32(b, off + PREFERRED_SEND_SIZE);
    }

    /** MaxReceiveSize (u32). */
    public static long maxReceiveSize(ByteBuffer b, int off) {
        return Le.u32(b, off + MAX_RECEIVE_SIZE);
    }

    /** MaxFragmentedSize (u32). */
    public static long maxFragmentedSize(ByteBuffer b, int off) {
        return Le.u32(b, off + MAX_FRAGMENTED_SIZE);
    }

    /**
     * The receive checks of [MS-SMBD] 3.1.5.7 (R-3.1.5.7-01..08); every failure terminates
     * (R-3.1.5.7-09). Order: length first, then Status (so that a peer's failure response is
     * reported by its status rather than by its zero NegotiatedVersion), then NegotiatedVersion,
     * MaxReceiveSize, MaxFragmentedSize, CreditsGranted, CreditsRequested, PreferredSendSize.
     * MinVersion/MaxVersion and Reserved are not checked (A-12, R-2.2.2-07); trailing bytes are
     * ignored.
     *
     * @param length the received byte count of the message starting at {@code off}
     * @param localMaxReceiveSize the local Connection.MaxReceiveSize (R-3.1.5.7-07)
     * @return {@code null} when the response is accepted, otherwise the first violation
     * @throws IndexOutOfBoundsException when {@code [off, off+length)} exceeds the buffer's limit
     */
    public static Violation check(ByteBuffer b, int off, int length, long localMaxReceiveSize) {
        Le.requireRegion(b, off, length);
        if (length < SmbdWire.NEGOTIATE_RESPONSE_SIZE) {
            return Violation.terminate("R-3.1.5.7-01", "length", length,
                    "is shorter than the 32-byte Negotiate Response");
        }
        int status = status(b, off);
        if (status != SmbdWire.STATUS_SUCCESS) {
            return Violation.terminate("R-3.1.5.7-08", "Status", Integer.toUnsignedLong(status),
                    "is not STATUS_SUCCESS: the peer refused the negotiation");
        }
        int negotiated = negotiatedVersion(b, off);
        if (negotiated != SmbdWire.PROTOCOL_V1) {
            return Violation.terminate("R-3.1.5.7-02", "NegotiatedVersion", negotiated, "is not 0x0100");
        }
        long maxReceive = maxReceiveSize(b, off);
        if (maxReceive < SmbdWire.MIN_RECEIVE_SIZE) {
            return Violation.terminate("R-3.1.5.7-03", "MaxReceiveSize", maxReceive, "is below the minimum 128");
        }
        long maxFragmented = maxFragmentedSize(b, off);
        if (maxFragmented < SmbdWire.MIN_FRAGMENTED_SIZE) {
            return Violation.terminate("R-3.1.5.7-04", "MaxFragmentedSize", maxFragmented,
                    "is below the minimum 131072");
        }
        int granted = creditsGranted(b, off);
        if (granted == 0) {
            return Violation.terminate("R-3.1.5.7-05", "CreditsGranted", granted, "is not greater than 0");
        }
        int requested = creditsRequested(b, off);
        if (requested == 0) {
            return Violation.terminate("R-3.1.5.7-06", "CreditsRequested", requested, "is not greater than 0");
        }
        long preferred = preferredSendSize(b, off);
        if (preferred > localMaxReceiveSize) {
            return Violation.terminate("R-3.1.5.7-07", "PreferredSendSize", preferred,
                    "exceeds the local MaxReceiveSize " + localMaxReceiveSize);
        }
        return null;
    }
}
