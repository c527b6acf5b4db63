package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.example.fileserver.internal.share.CreateRequest;
import smbdirect.example.fileserver.internal.share.FileInfo;
import smbdirect.example.fileserver.internal.share.OpenFile;

/**
 * CREATE ([MS-SMB2] 3.3.5.9): the share opens, the open goes into the connection's table under a
 * new FileId. Create contexts (2.2.13.2): "MxAc" is answered with the tree's maximal access,
 * "QFid" with the file's index number (FileInternalInformation) as DiskFileId; every other context
 * (leases, durable handles, ...) is ignored. No oplock is granted. CREATE on IPC$ finds no pipe:
 * STATUS_OBJECT_NAME_NOT_FOUND.
 */
final class CreateCommand {

    private static final Logger LOG = LoggerFactory.getLogger(CreateCommand.class);

    private static final int FIXED = 88;
    private static final int INFO_FILE = 1;
    private static final int FILE_INTERNAL_INFORMATION = 6;

    private CreateCommand() {
    }

    static CompletableFuture<Smb2Response> create(RequestContext rc) throws SmbStatusException {
        Smb2Request req = rc.request;
        String name = req.utf16("Name", req.u16(44), req.u16(46));
        List<String> contexts = contextNames(req);
        if (rc.tree.pipe()) {
            throw new SmbStatusException(NtStatus.OBJECT_NAME_NOT_FOUND, "IPC$ serves no pipe ('" + name + "')");
        }
        if (name.startsWith("\\")) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "Name '" + name + "' starts with a backslash");
        }
        CreateRequest request = new CreateRequest(name, req.u32(24), req.u32(28), req.u32(32), req.u32(36), req.u32(40));
        OpenFile file = rc.connection.share().create(request);
        Open open = rc.connection.opens().add(rc.sessionId, rc.treeId, file);
        rc.fileId = new long[] {open.persistentId(), open.volatileId()};
        try {
            if (rc.connection.disconnected()) {
                throw new SmbStatusException(NtStatus.FILE_CLOSED, "the connection ended during CREATE");
            }
            FileInfo info;
            ByteBuffer answers;
            synchronized (open) {
                info = file.info();
                answers = answers(rc, open, contexts);
            }
            ByteBuffer b = Smb2Response.body(FIXED + Math.max(1, answers.remaining()));
            b.putShort((short) 89).put((byte) 0).put((byte) 0).putInt(file.createAction()).putLong(info.creationTime())
                    .putLong(info.lastAccessTime()).putLong(info.lastWriteTime()).putLong(info.changeTime())
                    .putLong(info.allocationSize()).putLong(info.endOfFile()).putInt(info.fileAttributes()).putInt(0)
                    .putLong(open.persistentId()).putLong(open.volatileId())
                    .putInt(answers.remaining() == 0 ? 0 : Smb2.HEADER_SIZE + FIXED).putInt(answers.remaining())
                    .put(answers);
            LOG.debug("{}: opened '{}' as FileId 0x{}", rc.connection, name, Long.toHexString(open.volatileId()));
            return RequestContext.done(Smb2Response.success(b.position(0)));
        } catch (SmbStatusException | RuntimeException e) {
            rc.fileId = null;
            if (rc.connection.opens().remove(open)) {
                rc.connection.closeQuietly(open);
            }
            throw e;
        }
    }

    /** The names of the request's create contexts (2.2.13.2), the chain checked. */
    static List<String> contextNames(Smb2Request req) throws SmbStatusException {
        long offset = Integer.toUnsignedLong(req.u32(48));
        long length = Integer.toUnsignedLong(req.u32(52));
        List<String> names = new ArrayList<>();
        if (length == 0) {
            return names;
        }
        ByteBuffer all = req.region("CreateContexts", offset, length);
        int at = 0;
        while (true) {
            if (at + 16 > all.limit()) {
                throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "create context at " + at + " beyond CreateContextsLength");
            }
            int next = all.getInt(at);
            int nameOffset = all.getShort(at + 4) & 0xFFFF;
            int nameLength = all.getShort(at + 6) & 0xFFFF;
            int dataOffset = all.getShort(at + 10) & 0xFFFF;
            long dataLength = Integer.toUnsignedLong(all.getInt(at + 12));
            int end = next == 0 ? all.limit() : at + next;
            if (next < 0 || (next != 0 && (next % 8 != 0 || end > all.limit())) || at + nameOffset + nameLength > end
                    || (dataLength > 0 && at + dataOffset + dataLength > end)) {
                throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "create context at " + at + ": Next=" + next
                        + " NameOffset=" + nameOffset + " NameLength=" + nameLength + " outside the contexts");
            }
            byte[] n = new byte[nameLength];
            all.get(at + nameOffset, n);
            names.add(new String(n, StandardCharsets.ISO_8859_1));
            if (next == 0) {
                return names;
            }
            at += next;
        }
    }

    /** The response's create contexts for MxAc and QFid, 8-byte aligned and chained. */
    private static ByteBuffer answers(RequestContext rc, Open open, List<String> asked) throws SmbStatusException {
        List<byte[]> names = new ArrayList<>();
        List<ByteBuffer> data = new ArrayList<>();
        if (asked.contains("MxAc")) {
            ByteBuffer d = Smb2Response.body(8);
            d.putInt(NtStatus.SUCCESS).putInt(TreeCommands.maximalAccess(rc.connection));
            names.add("MxAc".getBytes(StandardCharsets.US_ASCII));
            data.add(d.flip());
        }
        if (asked.contains("QFid")) {
            ByteBuffer id = Smb2Response.body(8);
            rc.connection.share().queryInfo(open.file(), INFO_FILE, FILE_INTERNAL_INFORMATION, 0, id);
            ByteBuffer d = Smb2Response.body(32);
            d.putLong(id.getLong(0));
            names.add("QFid".getBytes(StandardCharsets.US_ASCII));
            data.add(d.position(0));
        }
        int total = 0;
        for (int i = 0; i < names.size(); i++) {
            total = Dispatcher.align8(total) + 24 + data.get(i).remaining();
        }
        ByteBuffer out = Smb2Response.body(total);
        int at = 0;
        for (int i = 0; i < names.size(); i++) {
            int size = 24 + data.get(i).remaining();
            boolean last = i == names.size() - 1;
            out.position(at);
            out.putInt(last ? 0 : Dispatcher.align8(size)).putShort((short) 16).putShort((short) 4).putShort((short) 0)
                    .putShort((short) 24).putInt(data.get(i).remaining()).put(names.get(i)).putInt(0).put(data.get(i));
            at += Dispatcher.align8(size);
        }
        return out.position(0);
    }
}
