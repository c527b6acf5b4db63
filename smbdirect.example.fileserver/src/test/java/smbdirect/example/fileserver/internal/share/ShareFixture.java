package smbdirect.example.fileserver.internal.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.function.Executable;

import smbdirect.example.fileserver.internal.smb2.NtStatus;
import smbdirect.example.fileserver.internal.smb2.SmbStatusException;

/** What the share's tests share: the numbers of [MS-SMB2] 2.2.13 spelled out, and short forms of the calls. */
final class ShareFixture {

    // [MS-SMB2] 2.2.13.1.1
    static final int FILE_READ_DATA = 0x1;
    static final int FILE_WRITE_DATA = 0x2;
    static final int FILE_READ_ATTRIBUTES = 0x80;
    static final int FILE_WRITE_ATTRIBUTES = 0x100;
    static final int DELETE = 0x10000;
    static final int READ_CONTROL = 0x20000;
    static final int MAXIMUM_ALLOWED = 0x02000000;
    static final int GENERIC_ALL = 0x10000000;
    static final int GENERIC_WRITE = 0x40000000;
    static final int GENERIC_READ = 0x80000000;
    // [MS-SMB2] 2.2.13 CreateDisposition
    static final int SUPERSEDE = 0;
    static final int OPEN = 1;
    static final int CREATE = 2;
    static final int OPEN_IF = 3;
    static final int OVERWRITE = 4;
    static final int OVERWRITE_IF = 5;
    // CreateOptions
    static final int DIRECTORY_FILE = 0x1;
    static final int NON_DIRECTORY_FILE = 0x40;
    static final int DELETE_ON_CLOSE = 0x1000;
    static final int OPEN_REPARSE_POINT = 0x00200000;

    private ShareFixture() {
    }

    static OpenFile open(Share share, String path, int access, int disposition, int options) throws SmbStatusException {
        return share.create(new CreateRequest(path, access, 0, 7, disposition, options));
    }

    static OpenFile openRead(Share share, String path) throws SmbStatusException {
        return open(share, path, GENERIC_READ, OPEN, 0);
    }

    static OpenFile openAll(Share share, String path) throws SmbStatusException {
        return open(share, path, GENERIC_ALL, OPEN, 0);
    }

    static void assertStatus(int status, Executable call) {
        SmbStatusException e = assertThrows(SmbStatusException.class, call);
        assertEquals(NtStatus.name(status), NtStatus.name(e.status()), e.getMessage());
    }

    static ByteBuffer query(Share share, OpenFile f, int type, int infoClass, int size) throws SmbStatusException {
        ByteBuffer out = ByteBuffer.allocate(size);
        share.queryInfo(f, type, infoClass, 0, out);
        out.flip();
        return out.order(ByteOrder.LITTLE_ENDIAN);
    }

    static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    static String utf16(ByteBuffer b, int offset, int length) {
        byte[] raw = new byte[length];
        b.get(offset, raw);
        return new String(raw, StandardCharsets.UTF_16LE);
    }

    static byte[] utf16(String s) {
        return s.getBytes(StandardCharsets.UTF_16LE);
    }

    static long filetime(java.nio.file.attribute.FileTime t) {
        return t.toMillis() * 10_000 + 116_444_736_000_000_000L + (t.toInstant().getNano() / 100) % 10_000;
    }
}
