package smbdirect.impl.wire;

import java.nio.ByteBuffer;

/**
 * SMB Direct Negotiate Request ([MS-SMBD] 2.2.1), 20 bytes, sent once by the initiator.
 *
 * <p>Static codec over a {@link ByteBuffer} at an absolute offset: works whatever the buffer's
 * byte order is, never changes position or limit and allocates nothing on the success path.
 * Thread-safe (stateless); the caller owns the buffer and must not write it concurrently.
 *
 * <pre>
 * 0x00 MinVersion u16   0x02 MaxVersion u16   0x04 Reserved u16   0x06 CreditsRequested u16
 * 0x08 PreferredSendSize u32   0x0C MaxReceiveSize u32   0x10 MaxFragmentedSize u32
 * </pre>
 */
public final class NegotiateRequest {

    /** Offset of MinVersion. */
    public static final int MIN_VERSION = 0x00;
    /** Offset of MaxVersion. */
    public static final int MAX_VERSION = 0x02;
    /** Offset of Reserved. */
    public static final int RESERVED = 0x04;
    /** Offset of CreditsRequested. */
    public static final int CREDITS_REQUESTED = 0x06;
    /** Offset of PreferredSendSize. */
    public static final int PREFERRED_SEND_SIZE = 0x08;
    /** Offset of MaxReceiveSize. */
    public static final int MAX_RECEIVE_SIZE = 0x0C;
    /** Offset of MaxFragmentedSize. */
    public static final int MAX_FRAGMENTED_SIZE = 0x10;

    private NegotiateRequest() {
    }

    /**
     * Writes the 20-byte request at {@code off} (R-3.1.5.2-02..08; Reserved is written as 0).
     * Values are written as given so tests can build out-of-spec requests; each must fit its field.
     *
     * @throws IllegalArgumentException when a value does not fit its unsigned field
     * @throws IndexOutOfBoundsException when the 20 bytes do not fit below the limit
     * @throws java.nio.ReadOnlyBufferException when the buffer is read-only
     */
    public static void encode(ByteBuffer b, int off, int minVersion, int maxVersion, int creditsRequested,
            long preferredSendSize, long maxReceiveSize, long maxFragmentedSize) {
        Le.requireU16("MinVersion", minVersion);
        Le.requireU16("MaxVersion", maxVersion);
        Le.requireU16("CreditsRequested", creditsRequested);
        Le.requireU32("PreferredSendSize", preferredSendSize);
        Le.requireU32("MaxReceiveSize", maxReceiveSize);
        Le.requireU32("MaxFragmentedSize", maxFragmentedSize);
        Le.requireRegion(b, off, SmbdWire.NEGOTIATE_REQUEST_SIZE);
        Le.putU16(b, off + MIN_VERSION, minVersion);
        Le.putU16(b, off + MAX_VERSION, maxVersion);
        Le.putU16(b, off + RESERVED, 0);
        Le.putU16(b, off + CREDITS_REQUESTED, creditsRequested);
        Le.putU32(b, off + PREFERRED_SEND_SIZE, preferredSendSize);
        Le.putU32(b, off + MAX_RECEIVE_SIZE, maxReceiveSize);
        Le.putU32(b, off + MAX_FRAGMENTED_SIZE, maxFragmentedSize);
    }

    /** MinVersion (u16). */
    public static int minVersion(ByteBuffer b, int off) {
        return Le.u16(b, off + MIN_VERSION);
    }

    /** MaxVersion (u16). */
    public static int maxVersion(ByteBuffer b, int off) {
        return Le.u16(b, off + MAX_VERSION);
    }

    /** Reserved (u16); receivers ignore it (R-2.2.1-06). */
    public static int reserved(ByteBuffer b, int off) {
        return Le.u16(b, off + RESERVED);
    }

    /** CreditsRequested (u16). */
    public static int creditsRequested(ByteBuffer b, int off) {
        return Le.u16(b, off + CREDITS_REQUESTED);
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
     * The receive checks of [MS-SMBD] 3.1.5.6 in the spec's order: length (R-3.1.5.6-01,
     * terminate), version range (R-3.1.5.6-03: 0x0100 must lie in [MinVersion, MaxVersion],
     * otherwise a failure response with STATUS_NOT_SUPPORTED, R-3.1.5.6-04; a range that contains
     * 0x0100 is accepted, A-1), then CreditsRequested &gt; 0, MaxReceiveSize &ge; 128 and
     * MaxFragmentedSize &ge; 131072 (R-3.1.5.6-06..08, terminate, R-3.1.5.6-09). Bytes beyond the
     * 20 are ignored. PreferredSendSize is not checked (any value is acceptable, A-5).
     *
     * @param length the received byte count of the message starting at {@code off}
     * @return {@code null} when the request is accepted, otherwise the first violation
     * @throws IndexOutOfBoundsException when {@code [off, off+length)} exceeds the buffer's limit
     */
    public static Violation check(ByteBuffer b, int off, int length) {
        Le.requireRegion(b, off, length);
        if (length < SmbdWire.NEGOTIATE_REQUEST_SIZE) {
            return Violation.terminate("R-3.1.5.6-01", "length", length,
                    "is shorter than the 20-byte Negotiate Request");
        }
        int min = minVersion(b, off);
        int max = maxVersion(b, off);
        if (min > SmbdWire.PROTOCOL_V1) {
            return new Violation("R-3.1.5.6-03", Violation.Action.FAIL_RESPONSE, "MinVersion", min,
                    "is above 0x0100, so [MinVersion, MaxVersion] excludes 0x0100", SmbdWire.STATUS_NOT_SUPPORTED);
        }
        if (max < SmbdWire.PROTOCOL_V1) {
            return new Violation("R-3.1.5.6-03", Violation.Action.FAIL_RESPONSE, "MaxVersion", max,
                    "is below 0x0100, so [MinVersion, MaxVersion] excludes 0x0100", SmbdWire.STATUS_NOT_SUPPORTED);
        }
        int credits = creditsRequested(b, off);
        if (credits == 0) {
            return Violation.terminate("R-3.1.5.6-06", "CreditsRequested", credits, "is not greater than 0");
        }
        long maxReceive = maxReceiveSize(b, off);
        if (maxReceive < SmbdWire.MIN_RECEIVE_SIZE) {
            return Violation.terminate("R-3.1.5.6-07", "MaxReceiveSize", maxReceive, "is below the minimum 128");
        }
        long maxFragmented = maxFragmentedSize(b, off);
        if (maxFragmented < SmbdWire.MIN_FRAGMENTED_SIZE) {
            return Violation.terminate("R-3.1.5.6-08", "MaxFragmentedSize", maxFragmented,
                    "is below the minimum 131072");
        }
        return null;
    }

    /**
     * Windows' stricter version rule (A-1, product note &lt;5&gt;): accepted only when both
     * MinVersion and MaxVersion are exactly 0x0100. Returns the FAIL_RESPONSE violation or null.
     * Use after {@link #check} accepted the request if that policy is wanted.
     */
    public static Violation checkExactVersion(ByteBuffer b, int off) {
        int min = minVersion(b, off);
        if (min != SmbdWire.PROTOCOL_V1) {
            return new Violation("R-3.1.5.6-05", Violation.Action.FAIL_RESPONSE, "MinVersion", min,
                    "is not exactly 0x0100 (exact-version policy)", SmbdWire.STATUS_NOT_SUPPORTED);
        }
        int max = maxVersion(b, off);
        if (max != SmbdWire.PROTOCOL_V1) {
            return new Violation("R-3.1.5.6-05", Violation.Action.FAIL_RESPONSE, "MaxVersion", max,
                    "is not exactly 0x0100 (exact-version policy)", SmbdWire.STATUS_NOT_SUPPORTED);
        }
        return null;
    }
}
