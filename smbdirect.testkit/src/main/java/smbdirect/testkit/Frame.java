package smbdirect.testkit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One SMB Direct message a {@link ScriptedPeer} is about to send, as bytes a {@link ScriptedPeer.Hook}
 * may change: typed setters for the fields of a Data Transfer message ([MS-SMBD] 2.2.3) and raw
 * field access for anything else (negotiate messages, 2.2.1 and 2.2.2: use the offsets of the spec).
 * Values are written as given, in range or not: that is the point.
 */
public final class Frame {

    /** What the message is. */
    public enum Kind {
        /** SMBDirect Negotiate Request (2.2.1), sent by the active peer. */
        NEGOTIATE_REQUEST,
        /** SMBDirect Negotiate Response (2.2.2), sent by the passive peer. */
        NEGOTIATE_RESPONSE,
        /** SMBDirect Data Transfer message (2.2.3), with or without payload. */
        DATA
    }

    private final Kind kind;
    private byte[] bytes;

    Frame(Kind kind, byte[] bytes) {
        this.kind = kind;
        this.bytes = bytes;
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

    /** Data Transfer: CreditsRequested. */
    public int creditsRequested() {
        return u16(0);
    }

    /** Data Transfer: sets CreditsRequested. */
    public Frame creditsRequested(int value) {
        return u16(0, value);
    }

    /** Data Transfer: CreditsGranted. */
    public int creditsGranted() {
        return u16(2);
    }

    /** Data Transfer: sets CreditsGranted. */
    public Frame creditsGranted(int value) {
        return u16(2, value);
    }

    /** Data Transfer: Flags. */
    public int flags() {
        return u16(4);
    }

    /** Data Transfer: sets Flags (0x0001 SMB_DIRECT_RESPONSE_REQUESTED). */
    public Frame flags(int value) {
        return u16(4, value);
    }

    /** Data Transfer: sets Reserved (must be 0). */
    public Frame reserved(int value) {
        return u16(6, value);
    }

    /** Data Transfer: RemainingDataLength. */
    public long remainingDataLength() {
        return u32(8);
    }

    /** Data Transfer: sets RemainingDataLength. */
    public Frame remainingDataLength(long value) {
        return u32(8, value);
    }

    /** Data Transfer: DataOffset. */
    public long dataOffset() {
        return u32(12);
    }

    /** Data Transfer: sets DataOffset. */
    public Frame dataOffset(long value) {
        return u32(12, value);
    }

    /** Data Transfer: DataLength. */
    public long dataLength() {
        return u32(16);
    }

    /** Data Transfer: sets DataLength. */
    public Frame dataLength(long value) {
        return u32(16, value);
    }

    private ByteBuffer le() {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public String toString() {
        return kind + (kind == Kind.DATA && bytes.length >= 20
                ? "[requested=" + creditsRequested() + ", granted=" + creditsGranted() + ", flags=" + flags()
                        + ", remaining=" + remainingDataLength() + ", offset=" + dataOffset() + ", length="
                        + dataLength() + "]"
                : Arrays.toString(bytes));
    }
}
