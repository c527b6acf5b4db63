package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The 64-byte SMB2 header ([MS-SMB2] 2.2.1): decoded from a request, encoded for a response.
 * SYNC form (Reserved/ProcessId and TreeId) unless {@link Smb2#FLAGS_ASYNC_COMMAND} is set, then
 * {@code asyncId} holds bytes 32-39.
 *
 * @param creditCharge CreditCharge
 * @param status Status of a response; ChannelSequence/Reserved of a request
 * @param command Command
 * @param credits CreditRequest of a request, CreditResponse of a response
 * @param flags Flags
 * @param nextCommand NextCommand: offset of the next header of a compound, 0 for the last
 * @param messageId MessageId
 * @param processId Reserved (ProcessId) of the SYNC form
 * @param treeId TreeId of the SYNC form
 * @param asyncId AsyncId of the ASYNC form
 * @param sessionId SessionId
 */
public record Smb2Header(int creditCharge, int status, int command, int credits, int flags, int nextCommand,
        long messageId, int processId, int treeId, long asyncId, long sessionId) {

    public boolean isAsync() {
        return (flags & Smb2.FLAGS_ASYNC_COMMAND) != 0;
    }

    public boolean isRelated() {
        return (flags & Smb2.FLAGS_RELATED_OPERATIONS) != 0;
    }

    /**
     * Decodes the header at {@code at} of a little-endian message whose bytes end at the buffer's
     * limit, checking what makes it unusable: fewer than 64 bytes, ProtocolId, StructureSize, the
     * response flag, NextCommand (8-byte aligned, inside the message).
     */
    public static Smb2Header decode(ByteBuffer message, int at) throws MalformedMessageException {
        ByteBuffer m = message.order() == ByteOrder.LITTLE_ENDIAN ? message : message.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int available = m.limit() - at;
        if (available < Smb2.HEADER_SIZE) {
            throw new MalformedMessageException("message length " + available + ": shorter than the 64-byte SMB2 header");
        }
        int protocolId = m.getInt(at);
        if (protocolId != Smb2.PROTOCOL_ID) {
            String what = protocolId == Smb2.TRANSFORM_ID ? " (an encrypted message; this server does not encrypt)"
                    : protocolId == Smb2.COMPRESSION_ID ? " (a compressed message; this server does not compress)" : "";
            throw new MalformedMessageException(String.format("ProtocolId=0x%08X: not 0x424D53FE%s", protocolId, what));
        }
        int structureSize = m.getShort(at + 4) & 0xFFFF;
        if (structureSize != Smb2.HEADER_SIZE) {
            throw new MalformedMessageException("StructureSize=" + structureSize + ": not 64");
        }
        int flags = m.getInt(at + 16);
        if ((flags & Smb2.FLAGS_SERVER_TO_REDIR) != 0) {
            throw new MalformedMessageException(String.format("Flags=0x%08X: SMB2_FLAGS_SERVER_TO_REDIR set in a request", flags));
        }
        int next = m.getInt(at + 20);
        if (next != 0 && (next < 0 || next % 8 != 0 || next < Smb2.HEADER_SIZE || next > available - Smb2.HEADER_SIZE)) {
            throw new MalformedMessageException("NextCommand=" + Integer.toUnsignedString(next)
                    + ": not a multiple of 8 leaving a header inside the message of " + available + " bytes");
        }
        boolean async = (flags & Smb2.FLAGS_ASYNC_COMMAND) != 0;
        return new Smb2Header(m.getShort(at + 6) & 0xFFFF, m.getInt(at + 8), m.getShort(at + 12) & 0xFFFF,
                m.getShort(at + 14) & 0xFFFF, flags, next, m.getLong(at + 24), async ? 0 : m.getInt(at + 32),
                async ? 0 : m.getInt(at + 36), async ? m.getLong(at + 32) : 0, m.getLong(at + 40));
    }

    /** Writes this header (Signature zero) at the buffer's position and advances it by 64. */
    public void encode(ByteBuffer out) {
        out.putInt(Smb2.PROTOCOL_ID).putShort((short) Smb2.HEADER_SIZE).putShort((short) creditCharge).putInt(status)
                .putShort((short) command).putShort((short) credits).putInt(flags).putInt(nextCommand)
                .putLong(messageId);
        if (isAsync()) {
            out.putLong(asyncId);
        } else {
            out.putInt(processId).putInt(treeId);
        }
        out.putLong(sessionId).putLong(0).putLong(0);
    }

    @Override
    public String toString() {
        return Smb2.commandName(command) + " MessageId=" + messageId + " SessionId=0x" + Long.toHexString(sessionId)
                + " TreeId=0x" + Integer.toHexString(treeId) + " CreditCharge=" + creditCharge
                + (isRelated() ? " related" : "");
    }
}
