package smbdirect.example.fileserver.internal.smb2;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.RegisteredBuffer;
import smbdirect.example.fileserver.internal.share.IoStatus;

/**
 * READ ([MS-SMB2] 3.3.5.12). Inline (Channel NONE) the data follows the response at DataOffset 80.
 * With SMB2_CHANNEL_RDMA_V1 or _V1_INVALIDATE the file is read into a registered buffer of the
 * connection (one copy), RDMA-Written to the client's buffer descriptors, and then answered with
 * DataLength 0 and DataRemaining the number of bytes written (as Windows and ksmbd do; cifs takes
 * DataRemaining as the length of an RDMA read, smb2_read_data_length); _V1_INVALIDATE is answered
 * with Send with Invalidate of the first descriptor's token ({@link Dispatcher#invalidating},
 * whatever the status). At or beyond the end of file, or fewer
 * bytes than MinimumCount: STATUS_END_OF_FILE. A failed RDMA Write ends the connection (the
 * transport closes it) and the request gets no response.
 */
final class ReadCommand {

    /** Body offsets of the request's Channel field and of its ReadChannelInfoOffset (2.2.19). */
    static final int CHANNEL = 36;
    static final int CHANNEL_INFO = 44;
    private static final int FIXED = 16;
    private static final int DATA_OFFSET = Smb2.HEADER_SIZE + FIXED;

    private ReadCommand() {
    }

    static CompletableFuture<Smb2Response> read(RequestContext rc) throws SmbStatusException {
        Smb2Request req = rc.request;
        Smb2Connection c = rc.connection;
        long length = Integer.toUnsignedLong(req.u32(4));
        long offset = req.u64(8);
        Open open = rc.open(16);
        long minimum = Integer.toUnsignedLong(req.u32(32));
        int channel = req.u32(CHANNEL);
        RdmaChannel.checkLength(c, length, "MaxReadSize");
        RdmaChannel.checkRange(offset, length);
        if (!open.file().canRead()) {
            throw open.file().isDirectory() ? new SmbStatusException(NtStatus.INVALID_DEVICE_REQUEST, "READ on a directory")
                    : new SmbStatusException(NtStatus.ACCESS_DENIED, "the open has no read access");
        }
        if (channel == Smb2.CHANNEL_NONE) {
            if (DATA_OFFSET + length > c.maxResponseSize()) {
                throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "Length=" + length
                        + ": does not fit inline in the largest message the client takes; use an RDMA channel");
            }
            ByteBuffer b = Smb2Response.body(FIXED + (int) length);
            int n = readFully(open.file().channel(), b.position(FIXED).slice(), offset, minimum, length);
            return RequestContext.done(response(b, n, 0, n));
        }
        if (!Credits.isRdma(channel)) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "Channel=" + channel + ": unknown");
        }
        List<BufferDescriptor> remote = RdmaChannel.descriptors(req, CHANNEL_INFO, length);
        if (length == 0) {
            return RequestContext.done(response(Smb2Response.body(FIXED), 0, 0, 0));
        }
        Function<RegisteredBuffer, CompletableFuture<Smb2Response>> transfer = buffer -> {
            CompletableFuture<Smb2Response> result = new CompletableFuture<>();
            int n;
            try {
                n = readFully(open.file().channel(), buffer.buffer().limit((int) length), offset, minimum, length);
            } catch (SmbStatusException | RuntimeException e) {
                c.buffers().release(buffer);
                result.completeExceptionally(e);
                return result;
            }
            c.transport().rdmaWrite(buffer, 0, n, remote, 0, (bytes, failure) -> {
                c.buffers().release(buffer);
                if (failure != null) {
                    result.completeExceptionally(new ConnectionGoneException("the RDMA Write of READ failed: " + failure, failure));
                    return;
                }
                result.complete(response(Smb2Response.body(FIXED), 0, n, 0));
            });
            return result;
        };
        // a buffer at hand is filled on this worker; one given back later (by the transport's thread
        // that completed an RDMA Write) is filled on a worker
        CompletableFuture<RegisteredBuffer> acquired = c.buffers().acquire();
        return acquired.isDone() ? acquired.thenCompose(transfer) : acquired.thenComposeAsync(transfer, c.server().workers());
    }

    /**
     * Reads up to {@code length} bytes at {@code offset} into {@code into} (from its position);
     * STATUS_END_OF_FILE when nothing or fewer than {@code minimum} bytes are there.
     */
    static int readFully(FileChannel file, ByteBuffer into, long offset, long minimum, long length) throws SmbStatusException {
        int n = 0;
        try {
            while (n < length) {
                int r = file.read(into, offset + n);
                if (r < 0) {
                    break;
                }
                n += r;
            }
        } catch (IOException e) {
            throw IoStatus.of(e, "READ at " + offset);
        }
        if ((n == 0 && length > 0) || n < minimum) {
            throw new SmbStatusException(NtStatus.END_OF_FILE, "READ at " + offset + ": " + n + " bytes there, "
                    + Math.max(1, minimum) + " needed");
        }
        return n;
    }

    /** The READ response body (2.2.20) in {@code b}, whose data (inline) already follows the 16 fixed bytes. */
    private static Smb2Response response(ByteBuffer b, int dataLength, int dataRemaining, int inline) {
        b.putShort(0, (short) 17).put(2, (byte) DATA_OFFSET).putInt(4, dataLength).putInt(8, dataRemaining);
        b.limit(FIXED + inline).position(0);
        return Smb2Response.success(b);
    }
}
