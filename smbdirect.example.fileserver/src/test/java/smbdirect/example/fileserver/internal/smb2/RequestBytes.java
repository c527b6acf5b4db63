package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import smbdirect.api.BufferDescriptor;

/** SMB2 requests as a client puts them on the wire ([MS-SMB2] 2.2.1.2, 2.2.19, 2.2.21), for the unit tests. */
final class RequestBytes {

    private RequestBytes() {
    }

    /** A request: the 64-byte SYNC header and {@code body}. */
    static ByteBuffer request(int command, int creditCharge, long messageId, long sessionId, int treeId, int flags,
            byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(64 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(Smb2.PROTOCOL_ID).putShort((short) 64).putShort((short) creditCharge).putInt(0).putShort((short) command)
                .putShort((short) 8).putInt(flags).putInt(0).putLong(messageId).putInt(0xFEFF).putInt(treeId)
                .putLong(sessionId).put(new byte[16]).put(body);
        return b.flip();
    }

    /** {@code requests} chained into one compound message, each 8-byte aligned with NextCommand set. */
    static ByteBuffer compound(List<ByteBuffer> requests) {
        int total = 0;
        for (int i = 0; i < requests.size(); i++) {
            total += i == requests.size() - 1 ? requests.get(i).remaining() : (requests.get(i).remaining() + 7) & ~7;
        }
        ByteBuffer out = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < requests.size(); i++) {
            int start = out.position();
            ByteBuffer r = requests.get(i);
            int size = i == requests.size() - 1 ? r.remaining() : (r.remaining() + 7) & ~7;
            out.put(r.duplicate());
            if (i < requests.size() - 1) {
                out.putInt(start + 20, size);
            }
            out.position(start + size);
        }
        return out.flip();
    }

    static byte[] read(long length, long offset, long[] fileId, int minimum, int channel, List<BufferDescriptor> descriptors) {
        ByteBuffer b = ByteBuffer.allocate(48 + Math.max(1, 16 * descriptors.size())).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 49).put((byte) 0).put((byte) 0).putInt((int) length).putLong(offset).putLong(fileId[0])
                .putLong(fileId[1]).putInt(minimum).putInt(channel).putInt(0)
                .putShort((short) (descriptors.isEmpty() ? 0 : 64 + 48)).putShort((short) (16 * descriptors.size()));
        for (BufferDescriptor d : descriptors) {
            d.encode(b);
        }
        return b.array();
    }

    static byte[] writeRdma(long length, long offset, long[] fileId, int channel, List<BufferDescriptor> descriptors) {
        ByteBuffer b = ByteBuffer.allocate(48 + 16 * descriptors.size()).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 49).putShort((short) 0).putInt(0).putLong(offset).putLong(fileId[0]).putLong(fileId[1])
                .putInt(channel).putInt((int) length).putShort((short) (64 + 48)).putShort((short) (16 * descriptors.size()))
                .putInt(0);
        for (BufferDescriptor d : descriptors) {
            d.encode(b);
        }
        return b.array();
    }

    static byte[] writeInline(byte[] data, long offset, long[] fileId) {
        ByteBuffer b = ByteBuffer.allocate(48 + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 49).putShort((short) (64 + 48)).putInt(data.length).putLong(offset).putLong(fileId[0])
                .putLong(fileId[1]).putInt(0).putInt(0).putShort((short) 0).putShort((short) 0).putInt(0).put(data);
        return b.array();
    }

    static byte[] flush(long[] fileId) {
        ByteBuffer b = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 24).putShort((short) 0).putInt(0).putLong(fileId[0]).putLong(fileId[1]);
        return b.array();
    }

    static byte[] echo() {
        return new byte[] {4, 0, 0, 0};
    }
}
