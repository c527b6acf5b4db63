package smbdirect.example.fileserver.internal.smb2;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import smbdirect.api.BufferDescriptor;
import smbdirect.example.fileserver.internal.share.IoStatus;

/**
 * WRITE ([MS-SMB2] 3.3.5.13). Inline (Channel NONE) the data is at DataOffset, Length bytes. With
 * SMB2_CHANNEL_RDMA_V1 or _V1_INVALIDATE the length is RemainingBytes (Length and the inline data
 * must be empty, as ksmbd requires and cifs sends), RDMA-Read from the client's buffer
 * descriptors into a registered buffer of the connection and then written to the file (one copy);
 * _V1_INVALIDATE is answered with Send with Invalidate of the first descriptor's token
 * ({@link Dispatcher#invalidating}, whatever the status). Nothing is
 * written before the whole RDMA Read completed: a failed RDMA Read ends the connection (the
 * transport closes it) with no byte written and no response. Offset 0xFFFFFFFFFFFFFFFF appends.
 */
final class WriteCommand {

    /** Body offsets of the request's Channel, RemainingBytes and WriteChannelInfoOffset fields (2.2.21). */
    static final int CHANNEL = 32;
    static final int REMAINING_BYTES = 36;
    static final int CHANNEL_INFO = 40;
    private static final long APPEND = 0xFFFFFFFFFFFFFFFFL;

    private WriteCommand() {
    }

    static CompletableFuture<Smb2Response> write(RequestContext rc) throws SmbStatusException {
        Smb2Request req = rc.request;
        Smb2Connection c = rc.connection;
        int dataOffset = req.u16(2);
        long inlineLength = Integer.toUnsignedLong(req.u32(4));
        long offset = req.u64(8);
        Open open = rc.open(16);
        int channel = req.u32(CHANNEL);
        boolean rdma = Credits.isRdma(channel);
        if (!rdma && channel != Smb2.CHANNEL_NONE) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "Channel=" + channel + ": unknown");
        }
        if (rdma && inlineLength != 0) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "Length=" + inlineLength
                    + " with an RDMA channel: the data comes by RDMA Read (RemainingBytes)");
        }
        long length = rdma ? Integer.toUnsignedLong(req.u32(REMAINING_BYTES)) : inlineLength;
        RdmaChannel.checkLength(c, length, "MaxWriteSize");
        if (offset != APPEND) {
            RdmaChannel.checkRange(offset, length);
        }
        if (!open.file().canWrite()) {
            throw new SmbStatusException(NtStatus.ACCESS_DENIED, open.file().isDirectory() ? "WRITE on a directory"
                    : "the open has no write access");
        }
        if (!rdma) {
            ByteBuffer data = req.region("Data", dataOffset, length);
            writeFully(open.file().channel(), data, offset);
            return RequestContext.done(response(length));
        }
        List<BufferDescriptor> remote = RdmaChannel.descriptors(req, CHANNEL_INFO, length);
        if (length == 0) {
            return RequestContext.done(response(0));
        }
        return c.buffers().acquire().thenCompose(buffer -> {
            CompletableFuture<Void> read = new CompletableFuture<>();
            c.transport().rdmaRead(buffer, 0, (int) length, remote, 0, (bytes, failure) -> {
                if (failure == null) {
                    read.complete(null);
                } else {
                    c.buffers().release(buffer);
                    read.completeExceptionally(new ConnectionGoneException(
                            "the RDMA Read of WRITE failed, nothing was written: " + failure, failure));
                }
            });
            return read.thenApplyAsync(v -> {
                try {
                    writeFully(open.file().channel(), buffer.buffer().limit((int) length), offset);
                } catch (SmbStatusException e) {
                    throw new CompletionException(e);
                } finally {
                    c.buffers().release(buffer);
                }
                return response(length);
            }, c.server().workers());
        });
    }

    /** Writes all of {@code data} at {@code offset} (at the end of the file for the append offset). */
    static void writeFully(FileChannel file, ByteBuffer data, long offset) throws SmbStatusException {
        try {
            long at = offset == APPEND ? file.size() : offset;
            while (data.hasRemaining()) {
                at += file.write(data, at);
            }
        } catch (IOException e) {
            throw IoStatus.of(e, "WRITE at " + Long.toUnsignedString(offset));
        }
    }

    /** The WRITE response body (2.2.22): Count, Remaining 0, no channel info. */
    private static Smb2Response response(long count) {
        ByteBuffer b = Smb2Response.body(16);
        b.putShort((short) 17).putShort((short) 0).putInt((int) count);
        return Smb2Response.success(b.position(0));
    }
}
