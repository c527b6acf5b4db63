package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.util.List;

import smbdirect.api.BufferDescriptor;

/**
 * What READ and WRITE share: the channel info of an RDMA channel ([MS-SMB2] 2.2.19, 2.2.21: a
 * list of SMB_DIRECT_BUFFER_DESCRIPTOR_V1, [MS-SMBD] 2.2.3.1), the length limit and the range of a
 * file offset. Static.
 */
final class RdmaChannel {

    private RdmaChannel() {
    }

    /**
     * The descriptors of the channel info whose offset (from the header) and length are the two
     * 16-bit fields at body offset {@code infoField}: at least one, whole 16-byte entries, together
     * at least {@code needed} bytes.
     */
    static List<BufferDescriptor> descriptors(Smb2Request req, int infoField, long needed) throws SmbStatusException {
        ByteBuffer info = info(req, infoField);
        List<BufferDescriptor> list = BufferDescriptor.decodeList(info, info.remaining() / BufferDescriptor.BYTES);
        long total = 0;
        for (BufferDescriptor d : list) {
            total += d.lengthAsLong();
        }
        if (total < needed) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "the buffer descriptors describe " + total
                    + " bytes, fewer than the " + needed + " to transfer");
        }
        return list;
    }

    /**
     * The token of the first descriptor of the channel info that the fields at {@code infoField}
     * name, which must hold whole descriptors as for {@link #descriptors}.
     */
    static int firstToken(Smb2Request req, int infoField) throws SmbStatusException {
        return BufferDescriptor.decode(info(req, infoField)).token();
    }

    private static ByteBuffer info(Smb2Request req, int infoField) throws SmbStatusException {
        int offset = req.u16(infoField);
        int length = req.u16(infoField + 2);
        if (length < BufferDescriptor.BYTES || length % BufferDescriptor.BYTES != 0) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "channel info length " + length
                    + ": not one or more 16-byte buffer descriptors");
        }
        return req.region("channel info", offset, length);
    }

    /** At most the connection's MaxReadWriteSize, which NEGOTIATE gave as {@code limit} ([MS-SMB2] 3.3.5.12, 3.3.5.13). */
    static void checkLength(Smb2Connection c, long length, String limit) throws SmbStatusException {
        if (length > c.maxReadWriteSize()) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "Length=" + length + ": above " + limit + " "
                    + c.maxReadWriteSize());
        }
    }

    /** The offset must be one a file can have ([MS-SMB2] 3.3.5.12, 3.3.5.13). */
    static void checkRange(long offset, long length) throws SmbStatusException {
        if (offset < 0 || offset + length < 0) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "Offset=" + Long.toUnsignedString(offset)
                    + " Length=" + length + ": beyond the largest file offset");
        }
    }
}
