package smbdirect.testkit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One SMB Direct message a {@link ScriptedPeer} is about to send, as bytes a {@link ScriptedPeer.Hook}
 * may change, with a typed getter and setter for every field of each [MS-SMBD] message:
 *
 * <table>
 * <caption>Fields by message</caption>
 * <tr><th>field</th><th>{@link Kind#NEGOTIATE_REQUEST} (2.2.1)</th>
 * <th>{@link Kind#NEGOTIATE_RESPONSE} (2.2.2)</th><th>{@link Kind#DATA} (2.2.3)</th></tr>
 * <tr><td>{@link #minVersion() MinVersion}, {@link #maxVersion() MaxVersion}</td><td>yes</td><td>yes</td><td></td></tr>
 * <tr><td>{@link #negotiatedVersion() NegotiatedVersion}</td><td></td><td>yes</td><td></td></tr>
 * <tr><td>{@link #reserved() Reserved}</td><td>yes</td><td>yes</td><td>yes</td></tr>
 * <tr><td>{@link #creditsRequested() CreditsRequested}</td><td>yes</td><td>yes</td><td>yes</td></tr>
 * <tr><td>{@link #creditsGranted() CreditsGranted}</td><td></td><td>yes</td><td>yes</td></tr>
 * <tr><td>{@link #status() Status}, {@link #maxReadWriteSize() MaxReadWriteSize}</td><td></td><td>yes</td><td></td></tr>
 * <tr><td>{@link #preferredSendSize() PreferredSendSize}, {@link #maxReceiveSize() MaxReceiveSize},
 * {@link #maxFragmentedSize() MaxFragmentedSize}</td><td>yes</td><td>yes</td><td></td></tr>
 * <tr><td>{@link #flags() Flags}, {@link #remainingDataLength() RemainingDataLength},
 * {@link #dataOffset() DataOffset}, {@link #dataLength() DataLength}, {@link #payload() Buffer}</td>
 * <td></td><td></td><td>yes</td></tr>
 * </table>
 *
 * <p>A getter or setter of a field the message does not have throws an
 * {@link IllegalStateException} naming the field and the message. Values are written as given, in
 * range or not (the low 16 or 32 bits): that is the point. {@link #u16(int, int)} and
 * {@link #u32(int, long)} reach any offset; {@link #replace(byte[])} any length and content.
 * Numbers are unsigned and little-endian on the wire ([MS-SMBD] 2.2).
 *
 * <p>A hook is given the peer's own frames; {@link #negotiateRequest}, {@link #negotiateResponse}
 * and {@link #dataTransfer} build one of each kind for {@link ScriptedPeer#sendRaw(Frame)}.
 */
public final class Frame {

    /** What the message is. */
    public enum Kind {
        /** SMBDirect Negotiate Request (2.2.1), sent by the active peer: 20 bytes. */
        NEGOTIATE_REQUEST,
        /** SMBDirect Negotiate Response (2.2.2), sent by the passive peer: 32 bytes. */
        NEGOTIATE_RESPONSE,
        /** SMBDirect Data Transfer message (2.2.3), with or without payload: 20 bytes of header. */
        DATA
    }

    /** The field is not in this kind of message. */
    private static final int ABSENT = -1;

    private final Kind kind;
    private byte[] bytes;

    Frame(Kind kind, byte[] bytes) {
        this.kind = kind;
        this.bytes = bytes;
    }

    /**
     * A Negotiate Request (2.2.1) for version 0x0100 (MinVersion and MaxVersion 0x0100, Reserved 0)
     * with the given fields, to send with {@link ScriptedPeer#sendRaw(Frame)}; any field can be
     * changed afterwards with its setter. Values are written as given (the low 16 or 32 bits).
     *
     * @since 1.2
     */
    public static Frame negotiateRequest(int creditsRequested, long preferredSendSize, long maxReceiveSize,
            long maxFragmentedSize) {
        return new Frame(Kind.NEGOTIATE_REQUEST,
                KitWire.negotiateRequest(creditsRequested, preferredSendSize, maxReceiveSize, maxFragmentedSize));
    }

    /**
     * A successful Negotiate Response (2.2.2) for version 0x0100 (MinVersion, MaxVersion and
     * NegotiatedVersion 0x0100, Status 0, Reserved 0) with the given fields; a failed one is this with
     * {@link #status(long)} set. Values are written as given (the low 16 or 32 bits).
     *
     * @since 1.2
     */
    public static Frame negotiateResponse(int creditsRequested, int creditsGranted, long maxReadWriteSize,
            long preferredSendSize, long maxReceiveSize, long maxFragmentedSize) {
        return new Frame(Kind.NEGOTIATE_RESPONSE, KitWire.negotiateResponse(creditsRequested, creditsGranted,
                maxReadWriteSize, preferredSendSize, maxReceiveSize, maxFragmentedSize));
    }

    /**
     * A Data Transfer message (2.2.3) with the given fields: without payload (an empty {@code payload})
     * the 20-byte header alone with DataOffset and DataLength 0; with payload, the header, 4 bytes of
     * zero Padding and the payload, DataOffset 24 and DataLength its length. Reserved is 0.
     * {@link #dataOffset(long)}, {@link #dataLength(long)}, {@link #reserved(int)} and
     * {@link #replace(byte[])} set the rest out of range as a test needs. Values are written as
     * given (the low 16 or 32 bits).
     *
     * @param flags 0, or 0x0001 SMB_DIRECT_RESPONSE_REQUESTED
     * @since 1.2
     */
    public static Frame dataTransfer(int creditsRequested, int creditsGranted, int flags, long remainingDataLength,
            byte[] payload) {
        return new Frame(Kind.DATA, KitWire.data(creditsRequested, creditsGranted, flags, remainingDataLength, payload,
                0, payload.length));
    }

    /** What the message is. */
    public Kind kind() {
        return kind;
    }

    /** The bytes that will be sent (a copy). */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Length of the message in bytes. */
    public int length() {
        return bytes.length;
    }

    /** Replaces the whole message (any length, any content). */
    public Frame replace(byte[] message) {
        bytes = message.clone();
        return this;
    }

    /** Writes an unsigned 16-bit little-endian field at {@code offset} (the value's low 16 bits). */
    public Frame u16(int offset, int value) {
        le().putShort(offset, (short) value);
        return this;
    }

    /** Writes an unsigned 32-bit little-endian field at {@code offset} (the value's low 32 bits). */
    public Frame u32(int offset, long value) {
        le().putInt(offset, (int) value);
        return this;
    }

    /** Reads the unsigned 16-bit little-endian field at {@code offset}. */
    public int u16(int offset) {
        return Short.toUnsignedInt(le().getShort(offset));
    }

    /** Reads the unsigned 32-bit little-endian field at {@code offset}. */
    public long u32(int offset) {
        return Integer.toUnsignedLong(le().getInt(offset));
    }

    // ---- fields of the negotiate messages ----------------------------------------------------

    /** Negotiate Request and Response: MinVersion (0x0100 for [MS-SMBD] 1.0). */
    public int minVersion() {
        return u16(at("MinVersion", 0, 0, ABSENT));
    }

    /** Negotiate Request and Response: sets MinVersion. */
    public Frame minVersion(int value) {
        return u16(at("MinVersion", 0, 0, ABSENT), value);
    }

    /** Negotiate Request and Response: MaxVersion. */
    public int maxVersion() {
        return u16(at("MaxVersion", 2, 2, ABSENT));
    }

    /** Negotiate Request and Response: sets MaxVersion. */
    public Frame maxVersion(int value) {
        return u16(at("MaxVersion", 2, 2, ABSENT), value);
    }

    /** Negotiate Response: NegotiatedVersion. */
    public int negotiatedVersion() {
        return u16(at("NegotiatedVersion", ABSENT, 4, ABSENT));
    }

    /** Negotiate Response: sets NegotiatedVersion. */
    public Frame negotiatedVersion(int value) {
        return u16(at("NegotiatedVersion", ABSENT, 4, ABSENT), value);
    }

    /** Negotiate Response: Status (0 = STATUS_SUCCESS, 0xC00000BB = STATUS_NOT_SUPPORTED). */
    public long status() {
        return u32(at("Status", ABSENT, 12, ABSENT));
    }

    /** Negotiate Response: sets Status. */
    public Frame status(long value) {
        return u32(at("Status", ABSENT, 12, ABSENT), value);
    }

    /** Negotiate Response: MaxReadWriteSize. */
    public long maxReadWriteSize() {
        return u32(at("MaxReadWriteSize", ABSENT, 16, ABSENT));
    }

    /** Negotiate Response: sets MaxReadWriteSize. */
    public Frame maxReadWriteSize(long value) {
        return u32(at("MaxReadWriteSize", ABSENT, 16, ABSENT), value);
    }

    /** Negotiate Request and Response: PreferredSendSize. */
    public long preferredSendSize() {
        return u32(at("PreferredSendSize", 8, 20, ABSENT));
    }

    /** Negotiate Request and Response: sets PreferredSendSize. */
    public Frame preferredSendSize(long value) {
        return u32(at("PreferredSendSize", 8, 20, ABSENT), value);
    }

    /** Negotiate Request and Response: MaxReceiveSize. */
    public long maxReceiveSize() {
        return u32(at("MaxReceiveSize", 12, 24, ABSENT));
    }

    /** Negotiate Request and Response: sets MaxReceiveSize. */
    public Frame maxReceiveSize(long value) {
        return u32(at("MaxReceiveSize", 12, 24, ABSENT), value);
    }

    /** Negotiate Request and Response: MaxFragmentedSize. */
    public long maxFragmentedSize() {
        return u32(at("MaxFragmentedSize", 16, 28, ABSENT));
    }

    /** Negotiate Request and Response: sets MaxFragmentedSize. */
    public Frame maxFragmentedSize(long value) {
        return u32(at("MaxFragmentedSize", 16, 28, ABSENT), value);
    }

    // ---- fields of more than one message -----------------------------------------------------

    /** Every message: Reserved (written as 0, ignored on receipt). */
    public int reserved() {
        return u16(at("Reserved", 4, 6, 6));
    }

    /** Every message: sets Reserved. */
    public Frame reserved(int value) {
        return u16(at("Reserved", 4, 6, 6), value);
    }

    /** Every message: CreditsRequested (the sender's Send Credit target). */
    public int creditsRequested() {
        return u16(at("CreditsRequested", 6, 8, 0));
    }

    /** Every message: sets CreditsRequested. */
    public Frame creditsRequested(int value) {
        return u16(at("CreditsRequested", 6, 8, 0), value);
    }

    /** Negotiate Response and Data Transfer: CreditsGranted. */
    public int creditsGranted() {
        return u16(at("CreditsGranted", ABSENT, 10, 2));
    }

    /** Negotiate Response and Data Transfer: sets CreditsGranted. */
    public Frame creditsGranted(int value) {
        return u16(at("CreditsGranted", ABSENT, 10, 2), value);
    }

    // ---- fields of the Data Transfer message -------------------------------------------------

    /** Data Transfer: Flags. */
    public int flags() {
        return u16(at("Flags", ABSENT, ABSENT, 4));
    }

    /** Data Transfer: sets Flags (0x0001 SMB_DIRECT_RESPONSE_REQUESTED). */
    public Frame flags(int value) {
        return u16(at("Flags", ABSENT, ABSENT, 4), value);
    }

    /** Data Transfer: RemainingDataLength. */
    public long remainingDataLength() {
        return u32(at("RemainingDataLength", ABSENT, ABSENT, 8));
    }

    /** Data Transfer: sets RemainingDataLength. */
    public Frame remainingDataLength(long value) {
        return u32(at("RemainingDataLength", ABSENT, ABSENT, 8), value);
    }

    /** Data Transfer: DataOffset. */
    public long dataOffset() {
        return u32(at("DataOffset", ABSENT, ABSENT, 12));
    }

    /** Data Transfer: sets DataOffset. */
    public Frame dataOffset(long value) {
        return u32(at("DataOffset", ABSENT, ABSENT, 12), value);
    }

    /** Data Transfer: DataLength. */
    public long dataLength() {
        return u32(at("DataLength", ABSENT, ABSENT, 16));
    }

    /** Data Transfer: sets DataLength. */
    public Frame dataLength(long value) {
        return u32(at("DataLength", ABSENT, ABSENT, 16), value);
    }

    /**
     * Data Transfer: the Buffer, the DataLength bytes at DataOffset (a copy; empty when DataLength
     * is 0).
     *
     * @throws IndexOutOfBoundsException when DataOffset and DataLength point outside the message
     *     (a hook may have set them so)
     */
    public byte[] payload() {
        int offset = (int) dataOffset();
        int length = (int) dataLength();
        return Arrays.copyOfRange(bytes, offset, Math.addExact(offset, length));
    }

    /**
     * Data Transfer: replaces the Buffer with {@code data} and sets DataLength to its length; the
     * message ends after it. The header and the Padding before DataOffset stay (DataOffset 0 becomes
     * 24, as a message with payload needs).
     */
    public Frame payload(byte[] data) {
        at("Buffer", ABSENT, ABSENT, 0);
        int offset = (int) dataOffset();
        if (offset == 0) {
            offset = 24;
        }
        byte[] m = Arrays.copyOf(bytes, offset + data.length);
        System.arraycopy(data, 0, m, offset, data.length);
        bytes = m;
        dataOffset(offset);
        return dataLength(data.length);
    }

    /** The offset of {@code field} in this kind of message (request, response, data), or a refusal. */
    private int at(String field, int request, int response, int data) {
        int offset = switch (kind) {
            case NEGOTIATE_REQUEST -> request;
            case NEGOTIATE_RESPONSE -> response;
            case DATA -> data;
        };
        if (offset == ABSENT) {
            throw new IllegalStateException(field + " is not a field of a " + kind + " message");
        }
        return offset;
    }

    private ByteBuffer le() {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public String toString() {
        try {
            return switch (kind) {
                case NEGOTIATE_REQUEST -> kind + "[min=0x" + Integer.toHexString(minVersion()) + ", max=0x"
                        + Integer.toHexString(maxVersion()) + ", requested=" + creditsRequested() + ", preferredSend="
                        + preferredSendSize() + ", maxReceive=" + maxReceiveSize() + ", maxFragmented="
                        + maxFragmentedSize() + "]";
                case NEGOTIATE_RESPONSE -> kind + "[min=0x" + Integer.toHexString(minVersion()) + ", max=0x"
                        + Integer.toHexString(maxVersion()) + ", negotiated=0x" + Integer.toHexString(negotiatedVersion())
                        + ", requested=" + creditsRequested() + ", granted=" + creditsGranted() + ", status=0x"
                        + Long.toHexString(status()) + ", maxReadWrite=" + maxReadWriteSize() + ", preferredSend="
                        + preferredSendSize() + ", maxReceive=" + maxReceiveSize() + ", maxFragmented="
                        + maxFragmentedSize() + "]";
                case DATA -> kind + "[requested=" + creditsRequested() + ", granted=" + creditsGranted() + ", flags="
                        + flags() + ", remaining=" + remainingDataLength() + ", offset=" + dataOffset() + ", length="
                        + dataLength() + "]";
            };
        } catch (IndexOutOfBoundsException e) {
            return kind + Arrays.toString(bytes); // shorter than its header: as bytes
        }
    }
}
