package smbdirect.example.fileserver.internal.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.example.fileserver.internal.share.ShareFixture.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.example.fileserver.internal.smb2.NtStatus;

/** CREATE ([MS-SMB2] 3.3.5.9) and CLOSE (3.3.5.16) on a share. */
class ShareCreateTest {

    @TempDir
    Path root;
    Share share;

    @BeforeEach
    void share() throws IOException {
        Files.writeString(root.resolve("f.txt"), "hello");
        Files.createDirectory(root.resolve("d"));
        share = new Share("s", root, false);
    }

    // --- dispositions ([MS-SMB2] 2.2.13 CreateDisposition, 2.2.14 CreateAction)

    @Test
    void supersedeOfAnExistingFileEmptiesItAndAnswersSuperseded() throws Exception {
        OpenFile f = open(share, "f.txt", GENERIC_WRITE, SUPERSEDE, 0);
        assertEquals(0, f.createAction()); // FILE_SUPERSEDED
        assertEquals(0, Files.size(root.resolve("f.txt")));
        share.close(f, false);
    }

    @Test
    void supersedeOfAMissingFileCreatesIt() throws Exception {
        OpenFile f = open(share, "new", GENERIC_WRITE, SUPERSEDE, 0);
        assertEquals(2, f.createAction()); // FILE_CREATED
        assertTrue(Files.isRegularFile(root.resolve("new")));
    }

    @Test
    void openOfAnExistingFileAnswersOpenedAndKeepsItsData() throws Exception {
        OpenFile f = openRead(share, "f.txt");
        assertEquals(1, f.createAction()); // FILE_OPENED
        assertEquals(5, f.channel().size());
        assertEquals(5, f.info().endOfFile());
    }

    @Test
    void openOfAMissingFileAnswersObjectNameNotFound() {
        assertStatus(NtStatus.OBJECT_NAME_NOT_FOUND, () -> openRead(share, "missing"));
        assertFalse(Files.exists(root.resolve("missing")));
    }

    @Test
    void createOfAnExistingFileAnswersObjectNameCollision() {
        assertStatus(NtStatus.OBJECT_NAME_COLLISION, () -> open(share, "f.txt", GENERIC_WRITE, CREATE, 0));
    }

    @Test
    void createOfAMissingFileCreatesAnEmptyFile() throws Exception {
        OpenFile f = open(share, "d\\n.txt", GENERIC_READ | GENERIC_WRITE, CREATE, NON_DIRECTORY_FILE);
        assertEquals(2, f.createAction());
        assertFalse(f.isDirectory());
        assertTrue(f.canRead());
        assertTrue(f.canWrite());
        f.channel().write(ByteBuffer.wrap("abc".getBytes(StandardCharsets.US_ASCII)), 0);
        share.close(f, false);
        assertEquals("abc", Files.readString(root.resolve("d/n.txt")));
    }

    @Test
    void openIfOpensAnExistingFileAndCreatesAMissingOne() throws Exception {
        assertEquals(1, open(share, "f.txt", GENERIC_READ, OPEN_IF, 0).createAction());
        assertEquals(2, open(share, "g.txt", GENERIC_READ, OPEN_IF, 0).createAction());
        assertTrue(Files.exists(root.resolve("g.txt")));
    }

    @Test
    void overwriteOfAnExistingFileTruncatesItAndAnswersOverwritten() throws Exception {
        OpenFile f = open(share, "f.txt", GENERIC_WRITE, OVERWRITE, 0);
        assertEquals(3, f.createAction()); // FILE_OVERWRITTEN
        assertEquals(0, Files.size(root.resolve("f.txt")));
    }

    @Test
    void overwriteOfAMissingFileAnswersObjectNameNotFound() {
        assertStatus(NtStatus.OBJECT_NAME_NOT_FOUND, () -> open(share, "missing", GENERIC_WRITE, OVERWRITE, 0));
    }

    @Test
    void overwriteIfTruncatesAnExistingFileAndCreatesAMissingOne() throws Exception {
        assertEquals(3, open(share, "f.txt", GENERIC_WRITE, OVERWRITE_IF, 0).createAction());
        assertEquals(0, Files.size(root.resolve("f.txt")));
        assertEquals(2, open(share, "h.txt", GENERIC_WRITE, OVERWRITE_IF, 0).createAction());
    }

    @Test
    void anUnknownDispositionAnswersInvalidParameter() {
        assertStatus(NtStatus.INVALID_PARAMETER, () -> open(share, "f.txt", GENERIC_READ, 6, 0));
    }

    // --- options

    @Test
    void directoryFileCreatesADirectoryWithoutAChannel() throws Exception {
        OpenFile d = open(share, "nd", GENERIC_READ, CREATE, DIRECTORY_FILE);
        assertTrue(d.isDirectory());
        assertNull(d.channel());
        assertFalse(d.canRead());
        assertTrue(Files.isDirectory(root.resolve("nd")));
        assertEquals(0x10, d.info().fileAttributes() & 0x10); // FILE_ATTRIBUTE_DIRECTORY
    }

    @Test
    void directoryFileOnAFileAnswersNotADirectory() {
        assertStatus(NtStatus.NOT_A_DIRECTORY, () -> open(share, "f.txt", GENERIC_READ, OPEN, DIRECTORY_FILE));
    }

    @Test
    void nonDirectoryFileOnADirectoryAnswersFileIsADirectory() {
        assertStatus(NtStatus.FILE_IS_A_DIRECTORY, () -> open(share, "d", GENERIC_READ, OPEN, NON_DIRECTORY_FILE));
    }

    @Test
    void bothDirectoryAndNonDirectoryAnswerInvalidParameter() {
        assertStatus(NtStatus.INVALID_PARAMETER,
                () -> open(share, "d", GENERIC_READ, OPEN, DIRECTORY_FILE | NON_DIRECTORY_FILE));
    }

    @Test
    void directoryFileWithAnOverwritingDispositionAnswersInvalidParameter() {
        assertStatus(NtStatus.INVALID_PARAMETER, () -> open(share, "d", GENERIC_ALL, OVERWRITE_IF, DIRECTORY_FILE));
    }

    @Test
    void overwriteOfADirectoryAnswersFileIsADirectory() {
        assertStatus(NtStatus.FILE_IS_A_DIRECTORY, () -> open(share, "d", GENERIC_ALL, OVERWRITE, 0));
        assertTrue(Files.isDirectory(root.resolve("d")));
    }

    @Test
    void openWithoutOptionsOfADirectoryOpensTheDirectory() throws Exception {
        OpenFile d = openRead(share, "d");
        assertTrue(d.isDirectory());
        assertNull(d.channel());
    }

    @Test
    void theEmptyNameOpensTheShareRoot() throws Exception {
        OpenFile r = open(share, "", FILE_READ_ATTRIBUTES, OPEN, DIRECTORY_FILE);
        assertTrue(r.isDirectory());
        assertEquals("", r.path());
    }

    @Test
    void deleteOnCloseRemovesTheFileAtItsClose() throws Exception {
        OpenFile f = open(share, "f.txt", DELETE | FILE_READ_ATTRIBUTES, OPEN, DELETE_ON_CLOSE);
        assertTrue(Files.exists(root.resolve("f.txt")));
        FileInfo last = share.close(f, true);
        assertNotNull(last);
        assertEquals(5, last.endOfFile());
        assertFalse(Files.exists(root.resolve("f.txt")));
    }

    @Test
    void deleteOnCloseWaitsForTheLastOpenAndNewOpensMeanwhileAnswerDeletePending() throws Exception {
        OpenFile reader = openRead(share, "f.txt");
        OpenFile deleter = open(share, "f.txt", DELETE, OPEN, DELETE_ON_CLOSE);
        share.close(deleter, false);
        assertTrue(Files.exists(root.resolve("f.txt")), "another open remains");
        assertStatus(NtStatus.DELETE_PENDING, () -> openRead(share, "f.txt"));
        share.close(reader, false);
        assertFalse(Files.exists(root.resolve("f.txt")));
        assertEquals(2, open(share, "f.txt", GENERIC_WRITE, CREATE, 0).createAction(), "the name is free again");
    }

    @Test
    void deleteOnCloseWithoutDeleteAccessAnswersAccessDenied() {
        assertStatus(NtStatus.ACCESS_DENIED, () -> open(share, "f.txt", GENERIC_READ, OPEN, DELETE_ON_CLOSE));
    }

    @Test
    void deleteOnCloseOfANonEmptyDirectoryAnswersDirectoryNotEmpty() throws Exception {
        Files.writeString(root.resolve("d/x"), "x");
        assertStatus(NtStatus.DIRECTORY_NOT_EMPTY, () -> open(share, "d", DELETE, OPEN, DIRECTORY_FILE | DELETE_ON_CLOSE));
    }

    @Test
    void deleteOnCloseOfAnEmptyDirectoryRemovesIt() throws Exception {
        share.close(open(share, "d", DELETE, OPEN, DIRECTORY_FILE | DELETE_ON_CLOSE), false);
        assertFalse(Files.exists(root.resolve("d")));
    }

    @Test
    void aSecondCloseAnswersFileClosed() throws Exception {
        OpenFile f = openRead(share, "f.txt");
        assertNull(share.close(f, false));
        assertFalse(f.channel().isOpen());
        assertStatus(NtStatus.FILE_CLOSED, () -> share.close(f, false));
    }

    @Test
    void closeWithPostQueryReportsTheAttributesBeforeTheClose() throws Exception {
        OpenFile f = open(share, "f.txt", GENERIC_WRITE | GENERIC_READ, OPEN, 0);
        f.channel().write(ByteBuffer.wrap(new byte[10_000]), 0);
        FileInfo info = share.close(f, true);
        assertEquals(10_000, info.endOfFile());
        assertEquals(12_288, info.allocationSize());
        assertEquals(0x20, info.fileAttributes()); // FILE_ATTRIBUTE_ARCHIVE
    }

    @Test
    void noNameBelowADirectoryThatIsToBeDeletedOpensOrIsCreated() throws Exception {
        OpenFile d = open(share, "d", DELETE, OPEN, DIRECTORY_FILE);
        share.setInfo(d, 1, 13, le(1).put(0, (byte) 1)); // FileDispositionInformation
        assertStatus(NtStatus.DELETE_PENDING, () -> open(share, "d\\new", GENERIC_WRITE, CREATE, 0));
        assertFalse(Files.exists(root.resolve("d/new")));
        share.close(d, false);
        assertFalse(Files.exists(root.resolve("d")));
    }

    @Test
    void opensOfManyThreadsOnOneFileAndManyFilesKeepTheirCounts() throws Exception {
        int threads = 8;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 200; i++) {
                        OpenFile shared = openRead(share, "f.txt");
                        OpenFile own = open(share, "t" + id + "-" + i, GENERIC_WRITE | DELETE, CREATE, DELETE_ON_CLOSE);
                        share.close(own, false);
                        share.close(shared, false);
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get(60, java.util.concurrent.TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        try (var names = Files.list(root)) {
            assertEquals(java.util.List.of("d", "f.txt"), names.map(p -> p.getFileName().toString()).sorted().toList());
        }
        OpenFile deleter = open(share, "f.txt", DELETE, OPEN, DELETE_ON_CLOSE);
        share.close(deleter, false);
        assertFalse(Files.exists(root.resolve("f.txt")), "no open was left counted");
    }

    // --- access ([MS-SMB2] 2.2.13.1.1)

    @Test
    void genericReadMapsToFileGenericRead() throws Exception {
        OpenFile f = open(share, "f.txt", GENERIC_READ, OPEN, 0);
        assertEquals(0x00120089, f.grantedAccess());
        assertTrue(f.canRead());
        assertFalse(f.canWrite());
    }

    @Test
    void genericWriteMapsToFileGenericWrite() throws Exception {
        OpenFile f = open(share, "f.txt", GENERIC_WRITE, OPEN, 0);
        assertEquals(0x00120116, f.grantedAccess());
        assertTrue(f.canWrite());
        assertFalse(f.canRead());
    }

    @Test
    void genericAllAndMaximumAllowedMapToFileAllAccess() throws Exception {
        assertEquals(0x001F01FF, open(share, "f.txt", GENERIC_ALL, OPEN, 0).grantedAccess());
        assertEquals(0x001F01FF, open(share, "f.txt", MAXIMUM_ALLOWED, OPEN, 0).grantedAccess());
    }

    @Test
    void attributesOnlyOpenReadsNoData() throws Exception {
        OpenFile f = open(share, "f.txt", FILE_READ_ATTRIBUTES, OPEN, 0);
        assertFalse(f.canRead());
        assertFalse(f.canWrite());
        assertEquals(5, f.info().endOfFile());
    }

    @Test
    void accessSystemSecurityAnswersPrivilegeNotHeld() {
        assertStatus(NtStatus.PRIVILEGE_NOT_HELD, () -> open(share, "f.txt", 0x01000000, OPEN, 0));
    }

    @Test
    void createReadOnlyAttributeMakesTheFileReadOnly() throws Exception {
        OpenFile f = share.create(new CreateRequest("ro", GENERIC_WRITE, 0x1, 7, CREATE, 0));
        assertEquals(0x1, f.info().fileAttributes() & 0x1); // FILE_ATTRIBUTE_READONLY
    }

    // --- read-only share

    @Test
    void aReadOnlyShareRefusesEveryWriteAccessAndCreation() throws Exception {
        Share ro = new Share("ro", root, true);
        assertStatus(NtStatus.ACCESS_DENIED, () -> open(ro, "f.txt", GENERIC_WRITE, OPEN, 0));
        assertStatus(NtStatus.ACCESS_DENIED, () -> open(ro, "f.txt", FILE_WRITE_ATTRIBUTES, OPEN, 0));
        assertStatus(NtStatus.ACCESS_DENIED, () -> open(ro, "f.txt", DELETE, OPEN, DELETE_ON_CLOSE));
        assertStatus(NtStatus.ACCESS_DENIED, () -> open(ro, "new", GENERIC_READ, OPEN_IF, 0));
        assertStatus(NtStatus.ACCESS_DENIED, () -> open(ro, "new", GENERIC_READ, CREATE, DIRECTORY_FILE));
        assertStatus(NtStatus.ACCESS_DENIED, () -> open(ro, "f.txt", GENERIC_READ, OVERWRITE_IF, 0));
        assertStatus(NtStatus.ACCESS_DENIED, () -> open(ro, "f.txt", GENERIC_READ, SUPERSEDE, 0));
        assertFalse(Files.exists(root.resolve("new")));
        assertEquals("hello", Files.readString(root.resolve("f.txt")));
    }

    @Test
    void aReadOnlyShareOpensForReadingAndMaximumAllowedGrantsNoWriteRight() throws Exception {
        Share ro = new Share("ro", root, true);
        OpenFile f = open(ro, "f.txt", MAXIMUM_ALLOWED, OPEN_IF, 0);
        assertEquals(1, f.createAction());
        assertTrue(f.canRead());
        assertFalse(f.canWrite());
        assertEquals(0, f.grantedAccess() & (FILE_WRITE_DATA | 0x4 | 0x10 | 0x40 | FILE_WRITE_ATTRIBUTES | DELETE | 0x40000 | 0x80000));
    }
}
