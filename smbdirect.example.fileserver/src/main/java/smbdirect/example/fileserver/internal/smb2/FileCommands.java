package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import smbdirect.example.fileserver.internal.share.FileInfo;

/**
 * The commands that hand an open to the share: CLOSE ([MS-SMB2] 3.3.5.10, the POSTQUERY_ATTRIB
 * flag), FLUSH (3.3.5.11), QUERY_DIRECTORY (3.3.5.18), QUERY_INFO (3.3.5.20, a BUFFER_OVERFLOW
 * answer carries the part that fits) and SET_INFO (3.3.5.21). Each works on its open while holding
 * the open's monitor.
 */
final class FileCommands {

    static final int CLOSE_FLAG_POSTQUERY_ATTRIB = 0x0001;

    private FileCommands() {
    }

    static CompletableFuture<Smb2Response> close(RequestContext rc) throws SmbStatusException {
        Smb2Request req = rc.request;
        int flags = req.u16(2);
        Open open = rc.open(8);
        if (!rc.connection.opens().remove(open)) {
            throw new SmbStatusException(NtStatus.FILE_CLOSED, "closed by another request");
        }
        boolean postQuery = (flags & CLOSE_FLAG_POSTQUERY_ATTRIB) != 0;
        FileInfo info;
        synchronized (open) {
            info = rc.connection.share().close(open.file(), postQuery);
        }
        ByteBuffer b = Smb2Response.body(60);
        b.putShort((short) 60);
        if (postQuery && info != null) {
            b.putShort((short) CLOSE_FLAG_POSTQUERY_ATTRIB).putInt(0).putLong(info.creationTime())
                    .putLong(info.lastAccessTime()).putLong(info.lastWriteTime()).putLong(info.changeTime())
                    .putLong(info.allocationSize()).putLong(info.endOfFile()).putInt(info.fileAttributes());
        }
        return RequestContext.done(Smb2Response.success(b.position(0)));
    }

    static CompletableFuture<Smb2Response> flush(RequestContext rc) throws SmbStatusException {
        Open open = rc.open(8);
        synchronized (open) {
            rc.connection.share().flush(open.file());
        }
        return RequestContext.done(Smb2Response.success(Dispatcher.fixed(4)));
    }

    static CompletableFuture<Smb2Response> queryInfo(RequestContext rc) throws SmbStatusException {
        Smb2Request req = rc.request;
        int infoType = req.u8(2);
        int infoClass = req.u8(3);
        long outputLength = Integer.toUnsignedLong(req.u32(4));
        int additional = req.u32(16);
        Open open = rc.open(24);
        ByteBuffer out = outputBuffer(rc, outputLength, "OutputBufferLength");
        int status = NtStatus.SUCCESS;
        synchronized (open) {
            try {
                rc.connection.share().queryInfo(open.file(), infoType, infoClass, additional, out);
            } catch (SmbStatusException e) {
                if (e.status() != NtStatus.BUFFER_OVERFLOW) {
                    throw e;
                }
                status = e.status();
            }
        }
        return RequestContext.done(Smb2Response.of(status, outputBody(out)));
    }

    static CompletableFuture<Smb2Response> setInfo(RequestContext rc) throws SmbStatusException {
        Smb2Request req = rc.request;
        int infoType = req.u8(2);
        int infoClass = req.u8(3);
        ByteBuffer in = req.region("Buffer", req.u16(8), Integer.toUnsignedLong(req.u32(4)));
        Open open = rc.open(16);
        synchronized (open) {
            rc.connection.share().setInfo(open.file(), infoType, infoClass, in);
        }
        return RequestContext.done(Smb2Response.success(Dispatcher.fixed(2)));
    }

    static CompletableFuture<Smb2Response> queryDirectory(RequestContext rc) throws SmbStatusException {
        Smb2Request req = rc.request;
        int infoClass = req.u8(2);
        int flags = req.u8(3);
        String pattern = req.utf16("FileName", req.u16(24), req.u16(26));
        long outputLength = Integer.toUnsignedLong(req.u32(28));
        Open open = rc.open(8);
        if (!open.file().isDirectory()) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "QUERY_DIRECTORY on a file");
        }
        ByteBuffer out = outputBuffer(rc, outputLength, "OutputBufferLength");
        synchronized (open) {
            rc.connection.share().queryDirectory(open.file(), infoClass, flags, pattern.isEmpty() ? "*" : pattern, out);
        }
        return RequestContext.done(Smb2Response.success(outputBody(out)));
    }

    /** A buffer of the client's output length, which must not exceed MaxTransactSize. */
    private static ByteBuffer outputBuffer(RequestContext rc, long length, String field) throws SmbStatusException {
        if (length > rc.connection.maxTransactSize()) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, field + "=" + length + ": above MaxTransactSize "
                    + rc.connection.maxTransactSize());
        }
        return Smb2Response.body((int) length);
    }

    /** The QUERY_INFO / QUERY_DIRECTORY response body (2.2.38, 2.2.34): what was written to {@code out}. */
    private static ByteBuffer outputBody(ByteBuffer out) {
        int n = out.position();
        ByteBuffer b = Smb2Response.body(8 + Math.max(1, n));
        b.putShort((short) 9).putShort((short) (n == 0 ? 0 : Smb2.HEADER_SIZE + 8)).putInt(n).put(out.flip());
        return b.position(0);
    }
}
