package smbdirect.example.fileserver.internal.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.example.fileserver.internal.share.ShareFixture.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import smbdirect.example.fileserver.internal.smb2.NtStatus;
import smbdirect.example.fileserver.internal.smb2.SmbStatusException;

/** QUERY_DIRECTORY ([MS-SMB2] 3.3.5.18) with the [MS-FSCC] 2.4 directory classes. */
class ShareQueryDirectoryTest {

    private static final int RESTART_SCANS = 0x01;
    private static final int RETURN_SINGLE_ENTRY = 0x02;
    private static final int REOPEN = 0x10;

    @TempDir
    Path base;
    Path root;
    Share share;
    OpenFile dir;

    @BeforeEach
    void share() throws IOException, SmbStatusException {
        root = Files.createDirectory(base.resolve("root"));
        Path d = Files.createDirectory(root.resolve("d"));
        Files.write(d.resolve("a.txt"), new byte[10]);
        Files.write(d.resolve("b.txt"), new byte[5000]);
        Files.createDirectory(d.resolve("sub"));
        Files.writeString(d.resolve("c.log"), "c");
        share = new Share("s", root, false);
        dir = open(share, "d", GENERIC_READ, OPEN, DIRECTORY_FILE);
    }

    /** Name offsets per class: [MS-FSCC] 2.4.10, 2.4.14, 2.4.8, 2.4.28, 2.4.17, 2.4.18. */
    private static int nameOffset(int infoClass) {
        return switch (infoClass) {
            case 1 -> 64;
            case 2 -> 68;
            case 3 -> 94;
            case 12 -> 12;
            case 37 -> 104;
            case 38 -> 80;
            default -> throw new IllegalArgumentException();
        };
    }

    private static int nameLengthOffset(int infoClass) {
        return infoClass == 12 ? 8 : 60;
    }

    record Entry(int offset, String name) {
    }

    /** Walks NextEntryOffset, checking each entry's 8-byte alignment and that the last one ends the buffer. */
    private static List<Entry> entries(ByteBuffer out, int infoClass) {
        ByteBuffer b = out.duplicate().flip().order(ByteOrder.LITTLE_ENDIAN);
        List<Entry> list = new ArrayList<>();
        int at = 0;
        while (true) {
            assertEquals(0, at % 8, "entry at " + at + " is 8-byte aligned");
            int next = b.getInt(at);
            int len = b.getInt(at + nameLengthOffset(infoClass));
            list.add(new Entry(at, utf16(b, at + nameOffset(infoClass), len)));
            if (next == 0) {
                assertEquals(b.limit(), at + nameOffset(infoClass) + len, "the last entry ends the output");
                return list;
            }
            at += next;
        }
    }

    private List<String> names(int infoClass, int flags, String pattern, int size) throws SmbStatusException {
        ByteBuffer out = ByteBuffer.allocate(size);
        share.queryDirectory(dir, infoClass, flags, pattern, out);
        return entries(out, infoClass).stream().map(Entry::name).toList();
    }

    @ParameterizedTest
    @CsvSource({"1", "2", "3", "12", "37", "38"})
    void everyClassListsDotDotDotThenTheNamesInOrder(int infoClass) throws Exception {
        assertEquals(List.of(".", "..", "a.txt", "b.txt", "c.log", "sub"), names(infoClass, 0, "*", 65536));
        assertStatus(NtStatus.NO_MORE_FILES, () -> names(infoClass, 0, "*", 65536));
    }

    @Test
    void fileIdBothDirectoryInformationCarriesSizesAttributesAndTheInode() throws Exception {
        ByteBuffer out = ByteBuffer.allocate(65536);
        share.queryDirectory(dir, 37, 0, "b.txt", out);
        ByteBuffer b = out.flip().order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(104 + 10, b.remaining());
        assertEquals(0, b.getInt(0), "NextEntryOffset of the only entry");
        assertEquals(0, b.getInt(4), "FileIndex");
        assertEquals(filetime(Files.getLastModifiedTime(root.resolve("d/b.txt"))), b.getLong(24), "LastWriteTime");
        assertEquals(5000, b.getLong(40), "EndOfFile");
        assertEquals(8192, b.getLong(48), "AllocationSize");
        assertEquals(0x20, b.getInt(56), "FILE_ATTRIBUTE_ARCHIVE");
        assertEquals(10, b.getInt(60), "FileNameLength");
        assertEquals(0, b.getInt(64), "EaSize");
        assertEquals(0, b.get(68), "ShortNameLength");
        assertEquals((Long) Files.getAttribute(root.resolve("d/b.txt"), "unix:ino"), b.getLong(96), "FileId");
        assertEquals("b.txt", utf16(b, 104, 10));
    }

    @Test
    void fileIdFullDirectoryInformationHasTheFileIdAt72() throws Exception {
        ByteBuffer out = ByteBuffer.allocate(65536);
        share.queryDirectory(dir, 38, 0, "sub", out);
        ByteBuffer b = out.flip().order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(80 + 6, b.remaining());
        assertEquals(0x10, b.getInt(56), "FILE_ATTRIBUTE_DIRECTORY");
        assertEquals((Long) Files.getAttribute(root.resolve("d/sub"), "unix:ino"), b.getLong(72));
    }

    @Test
    void patternsSelectTheNames() throws Exception {
        assertEquals(List.of("a.txt", "b.txt"), names(1, 0, "*.txt", 4096));
        assertEquals(List.of("c.log"), names(1, 0, "?.log", 4096), "a new pattern restarts");
        assertEquals(List.of("a.txt"), names(1, RESTART_SCANS, "a.txt", 4096));
        assertEquals(List.of("."), names(1, RESTART_SCANS, ".", 4096));
    }

    @Test
    void anExactNameThatDoesNotExistAnswersNoSuchFileThenNoMoreFiles() {
        assertStatus(NtStatus.NO_SUCH_FILE, () -> names(1, 0, "missing", 4096));
        assertStatus(NtStatus.NO_MORE_FILES, () -> names(1, 0, "missing", 4096));
        assertStatus(NtStatus.NO_SUCH_FILE, () -> names(1, RESTART_SCANS, "*.none", 4096));
    }

    @Test
    void smallBuffersResumeWhereThePreviousCallStopped() throws Exception {
        for (int i = 0; i < 100; i++) {
            Files.writeString(root.resolve("d/many-" + String.format("%03d", i)), "");
        }
        List<String> all = new ArrayList<>();
        int calls = 0;
        int size = 3 * 96; // a few FileBothDirectoryInformation entries at a time
        while (true) {
            ByteBuffer out = ByteBuffer.allocate(size);
            try {
                share.queryDirectory(dir, 3, 0, "*", out);
            } catch (SmbStatusException e) {
                assertEquals(NtStatus.NO_MORE_FILES, e.status());
                break;
            }
            calls++;
            assertTrue(out.position() <= size);
            entries(out, 3).forEach(e -> all.add(e.name()));
        }
        assertEquals(106, all.size());
        assertEquals(List.of(".", "..", "a.txt", "b.txt", "c.log"), all.subList(0, 5));
        assertEquals("many-000", all.get(5));
        assertEquals("many-099", all.get(104));
        assertEquals("sub", all.get(105));
        assertTrue(calls > 30, "several calls: " + calls);
    }

    @Test
    void returnSingleEntryGivesOneAtATime() throws Exception {
        assertEquals(List.of("."), names(12, RETURN_SINGLE_ENTRY, "*", 4096));
        assertEquals(List.of(".."), names(12, RETURN_SINGLE_ENTRY, "*", 4096));
        assertEquals(List.of("a.txt", "b.txt", "c.log", "sub"), names(12, 0, "*", 4096));
    }

    @Test
    void indexSpecifiedGoesOnFromTheEnumerationsPlace() throws Exception {
        // SMB2_INDEX_SPECIFIED (0x04): FileIndex is always 0 here, so the enumeration goes on where it stands
        assertEquals(List.of(".", ".."), names(12, 0, "*", 16 + 16 + 4));
        assertEquals(List.of("a.txt", "b.txt", "c.log", "sub"), names(12, 0x04, "*", 4096));
    }

    @Test
    void restartScansAndReopenStartOver() throws Exception {
        names(12, 0, "*", 4096);
        assertEquals(6, names(12, RESTART_SCANS, "*", 4096).size());
        Files.writeString(root.resolve("d/new"), "");
        assertEquals(7, names(12, REOPEN, "*", 4096).size(), "a restart sees names made since");
    }

    @Test
    void anEntryThatDoesNotFitAnEmptyBufferAnswersBufferTooSmallAndStaysForTheNextCall() throws Exception {
        assertStatus(NtStatus.BUFFER_TOO_SMALL, () -> share.queryDirectory(dir, 1, 0, "a.txt", ByteBuffer.allocate(64 + 4)));
        assertEquals(List.of("a.txt"), names(1, 0, "a.txt", 64 + 10));
    }

    @Test
    void aBufferBelowTheFixedPartAnswersInfoLengthMismatch() {
        assertStatus(NtStatus.INFO_LENGTH_MISMATCH, () -> share.queryDirectory(dir, 37, 0, "*", ByteBuffer.allocate(103)));
    }

    @Test
    void unknownClassesAFileAndMissingListRightAreRefused() throws Exception {
        assertStatus(NtStatus.INVALID_INFO_CLASS, () -> share.queryDirectory(dir, 4, 0, "*", ByteBuffer.allocate(4096)));
        OpenFile file = openRead(share, "d\\a.txt");
        assertStatus(NtStatus.INVALID_PARAMETER, () -> share.queryDirectory(file, 1, 0, "*", ByteBuffer.allocate(4096)));
        OpenFile attrs = open(share, "d", FILE_READ_ATTRIBUTES, OPEN, DIRECTORY_FILE);
        assertStatus(NtStatus.ACCESS_DENIED, () -> share.queryDirectory(attrs, 1, 0, "*", ByteBuffer.allocate(4096)));
    }

    @Test
    void aLinkLeadingOutIsListedAsItselfNotAsItsTarget() throws Exception {
        Path outside = Files.createDirectory(base.resolve("outside"));
        Files.write(outside.resolve("big"), new byte[12345]);
        Files.createSymbolicLink(root.resolve("d/out"), outside.resolve("big"));
        Files.createSymbolicLink(root.resolve("d/in"), root.resolve("d/b.txt"));
        ByteBuffer out = ByteBuffer.allocate(4096);
        share.queryDirectory(dir, 1, 0, "out", out);
        ByteBuffer b = out.flip().order(ByteOrder.LITTLE_ENDIAN);
        assertTrue(b.getLong(40) != 12345, "the target's size is not shown");
        ByteBuffer in = ByteBuffer.allocate(4096);
        share.queryDirectory(dir, 1, 0, "in", in);
        assertEquals(5000, in.flip().order(ByteOrder.LITTLE_ENDIAN).getLong(40), "a link inside shows its target");
    }

    @Test
    void theOutputStartsAtTheBuffersPositionAndLeavesItsByteOrder() throws Exception {
        ByteBuffer out = ByteBuffer.allocate(4096);
        out.position(16);
        share.queryDirectory(dir, 12, 0, "*", out);
        assertEquals(ByteOrder.BIG_ENDIAN, out.order());
        ByteBuffer b = out.flip().position(16).slice().order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(16, b.getInt(0), "'.' is 12 + 2 bytes, the next entry at 16");
    }
}
