package smbdirect.example.fileserver.internal.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.example.fileserver.internal.share.ShareFixture.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Instant;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.example.fileserver.internal.smb2.NtStatus;

/** SET_INFO ([MS-SMB2] 3.3.5.21) of the [MS-FSCC] 2.4 classes cifs uses, FLUSH (3.3.5.11). */
class ShareSetInfoTest {

    private static final int FILE = 1;

    @TempDir
    Path root;
    Share share;

    @BeforeEach
    void share() throws IOException {
        Files.writeString(root.resolve("f"), "0123456789");
        Files.createDirectories(root.resolve("d/sub"));
        Files.writeString(root.resolve("d/sub/inner"), "x");
        share = new Share("s", root, false);
    }

    /** FileRenameInformation for SMB2 ([MS-FSCC] 2.4.37.2). */
    private static ByteBuffer rename(String target, boolean replace) {
        byte[] n = utf16(target);
        ByteBuffer b = le(20 + n.length);
        b.put(0, (byte) (replace ? 1 : 0)).putLong(8, 0).putInt(16, n.length).put(20, n);
        return b;
    }

    private static ByteBuffer basic(long creation, long access, long write, long change, int attributes) {
        return le(40).putLong(creation).putLong(access).putLong(write).putLong(change).putInt(attributes).putInt(0).flip();
    }

    @Test
    void basicInformationSetsTheLastWriteTimeAndLeavesZeroAndMinusOne() throws Exception {
        OpenFile f = openAll(share, "f");
        FileTime before = Files.getLastModifiedTime(root.resolve("f"));
        share.setInfo(f, FILE, 4, basic(0, -1, 0, 0, 0));
        assertEquals(before, Files.getLastModifiedTime(root.resolve("f")), "0 and -1 leave the times");
        long t = 133_537_680_001_234_567L; // 2024-03-01T12:00:00.1234567Z
        share.setInfo(f, FILE, 4, basic(0, t, t, 0, 0));
        assertEquals(Instant.parse("2024-03-01T12:00:00.1234567Z"), Files.getLastModifiedTime(root.resolve("f")).toInstant());
        assertEquals(t, f.info().lastWriteTime());
        assertEquals(t, f.info().lastAccessTime());
    }

    @Test
    void basicInformationReadOnlyAttributeClearsAndRestoresTheOwnerWriteBit() throws Exception {
        OpenFile f = openAll(share, "f");
        share.setInfo(f, FILE, 4, basic(0, 0, 0, 0, 0x1));
        assertFalse(Files.getPosixFilePermissions(root.resolve("f")).contains(PosixFilePermission.OWNER_WRITE));
        assertEquals(0x21, f.info().fileAttributes());
        share.setInfo(f, FILE, 4, basic(0, 0, 0, 0, 0x80)); // FILE_ATTRIBUTE_NORMAL
        assertTrue(Files.getPosixFilePermissions(root.resolve("f")).contains(PosixFilePermission.OWNER_WRITE));
        assertEquals(0x20, f.info().fileAttributes());
    }

    @Test
    void basicInformationNeedsWriteAttributesAnd40Bytes() throws Exception {
        OpenFile reader = openRead(share, "f");
        assertStatus(NtStatus.ACCESS_DENIED, () -> share.setInfo(reader, FILE, 4, basic(0, 0, 0, 0, 0x1)));
        OpenFile f = openAll(share, "f");
        assertStatus(NtStatus.INFO_LENGTH_MISMATCH, () -> share.setInfo(f, FILE, 4, le(39)));
        assertStatus(NtStatus.INVALID_PARAMETER, () -> share.setInfo(f, FILE, 4, basic(0, 0, 0, 0, 0x10)));
    }

    @Test
    void renameMovesTheFileAndTheOpenFollows() throws Exception {
        OpenFile f = openAll(share, "f");
        share.setInfo(f, FILE, 10, rename("d\\g", false));
        assertFalse(Files.exists(root.resolve("f")));
        assertEquals("0123456789", Files.readString(root.resolve("d/g")));
        assertEquals("d\\g", f.path());
        assertEquals(10, f.info().endOfFile(), "queries follow the new name");
        ByteBuffer all = query(share, f, FILE, 18, 512);
        assertEquals("\\d\\g", utf16(all, 100, all.getInt(96)));
    }

    @Test
    void renameToAnExistingNameAnswersCollisionUnlessReplaceIfExists() throws Exception {
        Files.writeString(root.resolve("other"), "other");
        OpenFile f = openAll(share, "f");
        assertStatus(NtStatus.OBJECT_NAME_COLLISION, () -> share.setInfo(f, FILE, 10, rename("other", false)));
        assertEquals("other", Files.readString(root.resolve("other")));
        share.setInfo(f, FILE, 10, rename("other", true));
        assertEquals("0123456789", Files.readString(root.resolve("other")));
        assertFalse(Files.exists(root.resolve("f")));
    }

    @Test
    void renameOverADirectoryOrAnOpenFileIsRefused() throws Exception {
        Files.writeString(root.resolve("busy"), "busy");
        OpenFile busy = openRead(share, "busy");
        OpenFile f = openAll(share, "f");
        assertStatus(NtStatus.ACCESS_DENIED, () -> share.setInfo(f, FILE, 10, rename("d", true)));
        assertStatus(NtStatus.ACCESS_DENIED, () -> share.setInfo(f, FILE, 10, rename("busy", true)));
        share.close(busy, false);
        share.setInfo(f, FILE, 10, rename("busy", true));
        assertEquals("0123456789", Files.readString(root.resolve("busy")));
    }

    @Test
    void renameOfADirectoryMovesTheOpensBelowIt() throws Exception {
        OpenFile inner = openRead(share, "d\\sub\\inner");
        OpenFile d = open(share, "d", DELETE | FILE_READ_ATTRIBUTES, OPEN, DIRECTORY_FILE);
        share.setInfo(d, FILE, 10, rename("e", false));
        assertTrue(Files.isDirectory(root.resolve("e/sub")));
        assertEquals("e", d.path());
        assertEquals("e\\sub\\inner", inner.path());
        assertEquals(1, inner.info().endOfFile());
        assertStatus(NtStatus.INVALID_PARAMETER, () -> share.setInfo(d, FILE, 10, rename("e\\sub\\x", false)));
    }

    @Test
    void renameTakesALeadingBackslashAndRefusesEscapesAndMissingParents() throws Exception {
        OpenFile f = openAll(share, "f");
        assertStatus(NtStatus.OBJECT_NAME_INVALID, () -> share.setInfo(f, FILE, 10, rename("..\\f", false)));
        assertStatus(NtStatus.OBJECT_PATH_NOT_FOUND, () -> share.setInfo(f, FILE, 10, rename("nope\\f", false)));
        share.setInfo(f, FILE, 10, rename("\\g", false));
        assertTrue(Files.exists(root.resolve("g")));
    }

    @Test
    void renameNeedsDeleteAccessAndAValidLength() throws Exception {
        OpenFile reader = openRead(share, "f");
        assertStatus(NtStatus.ACCESS_DENIED, () -> share.setInfo(reader, FILE, 10, rename("g", false)));
        OpenFile f = openAll(share, "f");
        ByteBuffer bad = rename("g", false);
        bad.putInt(16, 100);
        assertStatus(NtStatus.INVALID_PARAMETER, () -> share.setInfo(f, FILE, 10, bad));
        assertStatus(NtStatus.INFO_LENGTH_MISMATCH, () -> share.setInfo(f, FILE, 10, le(19)));
    }

    @Test
    void dispositionDeletesAtTheLastCloseAndCanBeCleared() throws Exception {
        OpenFile f = openAll(share, "f");
        share.setInfo(f, FILE, 13, le(1).put(0, (byte) 1));
        assertStatus(NtStatus.DELETE_PENDING, () -> openRead(share, "f"));
        share.setInfo(f, FILE, 13, le(1).put(0, (byte) 0));
        share.close(f, false);
        assertTrue(Files.exists(root.resolve("f")), "cleared");
        OpenFile again = openAll(share, "f");
        share.setInfo(again, FILE, 13, le(1).put(0, (byte) 1));
        share.close(again, false);
        assertFalse(Files.exists(root.resolve("f")));
    }

    @Test
    void dispositionOfANonEmptyDirectoryAnswersDirectoryNotEmpty() throws Exception {
        OpenFile d = open(share, "d", DELETE, OPEN, DIRECTORY_FILE);
        assertStatus(NtStatus.DIRECTORY_NOT_EMPTY, () -> share.setInfo(d, FILE, 13, le(1).put(0, (byte) 1)));
        OpenFile root0 = open(share, "", DELETE, OPEN, DIRECTORY_FILE);
        assertStatus(NtStatus.ACCESS_DENIED, () -> share.setInfo(root0, FILE, 13, le(1).put(0, (byte) 1)));
    }

    @Test
    void dispositionNeedsDeleteAccess() throws Exception {
        OpenFile f = open(share, "f", GENERIC_WRITE, OPEN, 0);
        assertStatus(NtStatus.ACCESS_DENIED, () -> share.setInfo(f, FILE, 13, le(1).put(0, (byte) 1)));
    }

    @Test
    void dispositionExWithPosixSemanticsUnlinksAtOnce() throws Exception {
        OpenFile f = openAll(share, "f");
        share.setInfo(f, FILE, 64, le(4).putInt(0, 0x3)); // FILE_DISPOSITION_DELETE | POSIX_SEMANTICS
        assertFalse(Files.exists(root.resolve("f")));
        assertEquals(2, open(share, "f", GENERIC_WRITE, CREATE, 0).createAction(), "the name is free");
        share.close(f, false);
        assertTrue(Files.exists(root.resolve("f")), "the new file stays");
    }

    @Test
    void endOfFileTruncatesAndExtendsWithZeros() throws Exception {
        OpenFile f = openAll(share, "f");
        share.setInfo(f, FILE, 20, le(8).putLong(0, 4));
        assertEquals("0123", Files.readString(root.resolve("f")));
        share.setInfo(f, FILE, 20, le(8).putLong(0, 8));
        byte[] data = Files.readAllBytes(root.resolve("f"));
        assertEquals(8, data.length);
        assertEquals(0, data[7]);
        assertEquals(0, data[4]);
    }

    @Test
    void allocationBelowTheSizeTruncatesAndAboveLeavesTheSize() throws Exception {
        OpenFile f = openAll(share, "f");
        share.setInfo(f, FILE, 19, le(8).putLong(0, 1 << 20));
        assertEquals(10, Files.size(root.resolve("f")));
        share.setInfo(f, FILE, 19, le(8).putLong(0, 3));
        assertEquals(3, Files.size(root.resolve("f")));
    }

    @Test
    void endOfFileNeedsWriteDataAndAFileAndAPositiveSize() throws Exception {
        OpenFile reader = openRead(share, "f");
        assertStatus(NtStatus.ACCESS_DENIED, () -> share.setInfo(reader, FILE, 20, le(8)));
        OpenFile f = openAll(share, "f");
        assertStatus(NtStatus.INVALID_PARAMETER, () -> share.setInfo(f, FILE, 20, le(8).putLong(0, -1)));
        assertStatus(NtStatus.INFO_LENGTH_MISMATCH, () -> share.setInfo(f, FILE, 20, le(7)));
        OpenFile d = open(share, "d", GENERIC_ALL, OPEN, DIRECTORY_FILE);
        assertStatus(NtStatus.INVALID_PARAMETER, () -> share.setInfo(d, FILE, 20, le(8)));
        assertEquals(10, Files.size(root.resolve("f")));
    }

    @Test
    void aReadOnlyShareRefusesEverySetInfo() throws Exception {
        Share ro = new Share("ro", root, true);
        OpenFile f = openRead(ro, "f");
        assertStatus(NtStatus.ACCESS_DENIED, () -> ro.setInfo(f, FILE, 20, le(8)));
        assertStatus(NtStatus.ACCESS_DENIED, () -> ro.setInfo(f, FILE, 10, rename("g", true)));
        assertStatus(NtStatus.ACCESS_DENIED, () -> ro.setInfo(f, FILE, 13, le(1).put(0, (byte) 1)));
        assertEquals(10, Files.size(root.resolve("f")));
    }

    @Test
    void unknownAndUnsupportedClassesAreRefused() throws Exception {
        OpenFile f = openAll(share, "f");
        assertStatus(NtStatus.INVALID_INFO_CLASS, () -> share.setInfo(f, FILE, 99, le(64)));
        assertStatus(NtStatus.NOT_SUPPORTED, () -> share.setInfo(f, FILE, 11, le(64)));
        assertStatus(NtStatus.NOT_SUPPORTED, () -> share.setInfo(f, 3, 0, le(64)));
    }

    @Test
    void flushNeedsWriteAccessAndSucceedsWithIt() throws Exception {
        OpenFile reader = openRead(share, "f");
        assertStatus(NtStatus.ACCESS_DENIED, () -> share.flush(reader));
        OpenFile f = openAll(share, "f");
        f.channel().write(ByteBuffer.wrap(new byte[] {'z'}), 0);
        share.flush(f);
        assertEquals('z', Files.readAllBytes(root.resolve("f"))[0]);
    }
}
