package smbdirect.example.fileserver.client;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One SMB2 response as the client received it: the bytes of this response alone (a compounded
 * one is cut out of its message), and what the transport said about the message that carried it.
 *
 * @param bytes the header and body
 * @param invalidated whether the message arrived as a Send with Invalidate
 * @param invalidatedToken the token invalidated, when {@code invalidated}
 */
public record Response(byte[] bytes, boolean invalidated, int invalidatedToken) {

    public ByteBuffer le() {
        return Smb2.le(bytes);
    }

    public int status() {
        return le().getInt(8);
    }

    public int command() {
        return le().getShort(12) & 0xFFFF;
    }

    public int creditResponse() {
        return le().getShort(14) & 0xFFFF;
    }

    public int flags() {
        return le().getInt(16);
    }

    public int nextCommand() {
        return le().getInt(20);
    }

    public long messageId() {
        return le().getLong(24);
    }

    /** TreeId of a sync header; for an async one ({@link Smb2#FLAGS_ASYNC_COMMAND}) see {@link #asyncId()}. */
    public int treeId() {
        return le().getInt(36);
    }

    public long asyncId() {
        return le().getLong(32);
    }

    public long sessionId() {
        return le().getLong(40);
    }

    public byte[] signature() {
        return Arrays.copyOfRange(bytes, 48, 64);
    }

    public int bodyStructureSize() {
        return le().getShort(64) & 0xFFFF;
    }

    public int u8(int bodyOffset) {
        return bytes[64 + bodyOffset] & 0xFF;
    }

    public int u16(int bodyOffset) {
        return le().getShort(64 + bodyOffset) & 0xFFFF;
    }

    public int i32(int bodyOffset) {
        return le().getInt(64 + bodyOffset);
    }

    public long i64(int bodyOffset) {
        return le().getLong(64 + bodyOffset);
    }

    /** {@code length} bytes at {@code offset} from the header's start (the offsets responses give). */
    public byte[] slice(int offset, int length) {
        if (offset < 0 || length < 0 || offset + length > bytes.length) {
            throw new AssertionError(describe() + ": a buffer of " + length + " bytes at offset " + offset
                    + " does not fit in the " + bytes.length + "-byte response");
        }
        return Arrays.copyOfRange(bytes, offset, offset + length);
    }

    /** Whether the body is the error response of [MS-SMB2] 2.2.2 (StructureSize 9). */
    public boolean isErrorBody() {
        return bodyStructureSize() == 9;
    }

    public String describe() {
        return "response to MessageId " + messageId() + " (command " + command() + "): " + Status.name(status());
    }

    @Override
    public String toString() {
        return describe();
    }
}
