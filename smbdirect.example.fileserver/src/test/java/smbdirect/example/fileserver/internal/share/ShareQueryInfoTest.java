package smbdirect.example.fileserver.internal.share;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.example.fileserver.internal.share.ShareFixture.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.example.fileserver.internal.smb2.NtStatus;
import smbdirect.example.fileserver.internal.smb2.SmbStatusException;

/** QUERY_INFO ([MS-SMB2] 3.3.5.20): the bytes of each [MS-FSCC] 2.4 / 2.5 class and [MS-DTYP] 2.4.6. */
class ShareQueryInfoTest {

    private static final int FILE = 1;
    private static final int FS = 2;
    private static final int SECURITY = 3;

    @TempDir
    Path root;
    Share share;
    OpenFile file;
    long ino;
    long mtime;

    @BeforeEach
    void share() throws IOException, SmbStatusException {
        Files.createDirectory(root.resolve("dir"));
        Path f = Files.write(root.resolve("dir/file.bin"), new byte[5000]);
        Files.setLastModifiedTime(f, FileTime.from(Instant.parse("2024-03-01T12:00:00.1234567Z")));
        ino = (Long) Files.getAttribute(f, "unix:ino");
        mtime = filetime(Files.readAttributes(f, BasicFileAttributes.class).lastModifiedTime());
        share = new Share("data", root, false);
        file = open(share, "dir\\file.bin", GENERIC_READ | GENERIC_WRITE | DELETE, OPEN, 0x20 /* SYNCHRONOUS_IO_NONALERT */);
    }

    @Test
    void fileBasicInformationIs40BytesOfTimesAndAttributes() throws Exception {
        ByteBuffer b = query(share, file, FILE, 4, 100); // [MS-FSCC] 2.4.7
        assertEquals(40, b.remaining());
        assertEquals(mtime, b.getLong(16), "LastWriteTime");
        assertEquals(133_537_680_001_234_567L, b.getLong(16), "2024-03-01T12:00:00.1234567Z as FILETIME");
        assertTrue(b.getLong(24) >= mtime, "ChangeTime (ctime) not before the last write");
        assertEquals(0x20, b.getInt(32), "FILE_ATTRIBUTE_ARCHIVE");
        assertEquals(0, b.getInt(36), "Reserved");
    }

    @Test
    void fileStandardInformationGivesSizesLinksAndFlags() throws Exception {
        ByteBuffer b = query(share, file, FILE, 5, 24); // [MS-FSCC] 2.4.41
        assertEquals(24, b.remaining());
        assertEquals(8192, b.getLong(0), "AllocationSize, 5000 rounded to 4 KiB");
        assertEquals(5000, b.getLong(8), "EndOfFile");
        assertEquals(1, b.getInt(16), "NumberOfLinks");
        assertEquals(0, b.get(20), "DeletePending");
        assertEquals(0, b.get(21), "Directory");
        share.setInfo(file, FILE, 13, le(1).put(0, (byte) 1));
        assertEquals(1, query(share, file, FILE, 5, 24).get(20), "DeletePending after FileDispositionInformation");
        OpenFile d = openRead(share, "dir");
        assertEquals(1, query(share, d, FILE, 5, 24).get(21), "Directory");
    }

    @Test
    void fileInternalInformationIsTheInode() throws Exception {
        ByteBuffer b = query(share, file, FILE, 6, 8); // [MS-FSCC] 2.4.22
        assertEquals(8, b.remaining());
        assertEquals(ino, b.getLong(0));
    }

    @Test
    void theSmallFixedClassesHaveTheirSizesAndValues() throws Exception {
        assertEquals(0, query(share, file, FILE, 7, 4).getInt(0), "FileEaInformation 2.4.13: EaSize");
        ByteBuffer access = query(share, file, FILE, 8, 4); // 2.4.1
        assertEquals(4, access.remaining());
        assertEquals(file.grantedAccess(), access.getInt(0));
        ByteBuffer position = query(share, file, FILE, 14, 8); // 2.4.35
        assertEquals(8, position.remaining());
        ByteBuffer mode = query(share, file, FILE, 16, 4); // 2.4.26
        assertEquals(0x20, mode.getInt(0), "FILE_SYNCHRONOUS_IO_NONALERT");
        ByteBuffer alignment = query(share, file, FILE, 17, 4); // 2.4.3
        assertEquals(4, alignment.remaining());
        assertEquals(0, alignment.getInt(0), "FILE_BYTE_ALIGNMENT");
    }

    @Test
    void fileAllInformationChainsTheClassesAndEndsWithTheNameFromTheRoot() throws Exception {
        ByteBuffer b = query(share, file, FILE, 18, 4096); // [MS-FSCC] 2.4.2
        String name = "\\dir\\file.bin";
        assertEquals(100 + 2 * name.length(), b.remaining());
        assertEquals(mtime, b.getLong(16));
        assertEquals(0x20, b.getInt(32));
        assertEquals(8192, b.getLong(40), "StandardInformation.AllocationSize at 40");
        assertEquals(5000, b.getLong(48), "EndOfFile at 48");
        assertEquals(1, b.getInt(56), "NumberOfLinks at 56");
        assertEquals(ino, b.getLong(64), "InternalInformation at 64");
        assertEquals(0, b.getInt(72), "EaInformation at 72");
        assertEquals(file.grantedAccess(), b.getInt(76), "AccessInformation at 76");
        assertEquals(0, b.getLong(80), "PositionInformation at 80");
        assertEquals(0x20, b.getInt(88), "ModeInformation at 88");
        assertEquals(0, b.getInt(92), "AlignmentInformation at 92");
        assertEquals(2 * name.length(), b.getInt(96), "FileNameLength at 96");
        assertEquals(name, utf16(b, 100, 2 * name.length()));
    }

    @Test
    void fileAllInformationCutAnswersBufferOverflowWithTheFixedPart() throws Exception {
        ByteBuffer out = ByteBuffer.allocate(104);
        SmbStatusException e = org.junit.jupiter.api.Assertions.assertThrows(SmbStatusException.class,
                () -> share.queryInfo(file, FILE, 18, 0, out));
        assertEquals(NtStatus.BUFFER_OVERFLOW, e.status());
        assertEquals(104, out.position(), "what fits is written");
        out.flip();
        assertEquals(5000, out.order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(48));
        assertEquals("\\d", utf16(out, 100, 4));
    }

    @Test
    void aBufferBelowTheFixedPartAnswersInfoLengthMismatchAndWritesNothing() {
        ByteBuffer out = ByteBuffer.allocate(39);
        assertStatus(NtStatus.INFO_LENGTH_MISMATCH, () -> share.queryInfo(file, FILE, 4, 0, out));
        assertEquals(0, out.position());
        assertStatus(NtStatus.INFO_LENGTH_MISMATCH, () -> share.queryInfo(file, FILE, 18, 0, ByteBuffer.allocate(99)));
        assertStatus(NtStatus.INFO_LENGTH_MISMATCH, () -> share.queryInfo(file, FS, 5, 0, ByteBuffer.allocate(11)));
    }

    @Test
    void fileStreamInformationListsTheUnnamedDataStream() throws Exception {
        ByteBuffer b = query(share, file, FILE, 22, 1024); // [MS-FSCC] 2.4.44
        assertEquals(24 + 14, b.remaining());
        assertEquals(0, b.getInt(0), "NextEntryOffset");
        assertEquals(14, b.getInt(4), "StreamNameLength");
        assertEquals(5000, b.getLong(8), "StreamSize");
        assertEquals(8192, b.getLong(16), "StreamAllocationSize");
        assertEquals("::$DATA", utf16(b, 24, 14));
        assertEquals(0, query(share, openRead(share, "dir"), FILE, 22, 1024).remaining(), "a directory has none");
    }

    @Test
    void fileCompressionInformationSaysNotCompressed() throws Exception {
        ByteBuffer b = query(share, file, FILE, 28, 16); // [MS-FSCC] 2.4.9
        assertEquals(16, b.remaining());
        assertEquals(5000, b.getLong(0));
        assertEquals(0, b.getShort(8), "COMPRESSION_FORMAT_NONE");
    }

    @Test
    void fileNetworkOpenInformationIs56Bytes() throws Exception {
        ByteBuffer b = query(share, file, FILE, 34, 56); // [MS-FSCC] 2.4.29
        assertEquals(56, b.remaining());
        assertEquals(mtime, b.getLong(16));
        assertEquals(8192, b.getLong(32));
        assertEquals(5000, b.getLong(40));
        assertEquals(0x20, b.getInt(48));
        assertEquals(0, b.getInt(52));
    }

    @Test
    void fileAttributeTagInformationHasNoReparseTag() throws Exception {
        ByteBuffer b = query(share, openRead(share, "dir"), FILE, 35, 8); // [MS-FSCC] 2.4.6
        assertEquals(8, b.remaining());
        assertEquals(0x10, b.getInt(0));
        assertEquals(0, b.getInt(4));
    }

    @Test
    void fileNormalizedNameInformationIsTheNameFromTheRoot() throws Exception {
        ByteBuffer b = query(share, file, FILE, 48, 256); // [MS-FSCC] 2.4.30
        assertEquals(24, b.getInt(0));
        assertEquals(28, b.remaining());
        assertEquals("dir\\file.bin", utf16(b, 4, 24));
    }

    @Test
    void alternateNamesAreNotSupportedAndUnknownClassesAreInvalid() {
        assertStatus(NtStatus.NOT_SUPPORTED, () -> query(share, file, FILE, 21, 256));
        assertStatus(NtStatus.INVALID_INFO_CLASS, () -> query(share, file, FILE, 99, 256));
        assertStatus(NtStatus.INVALID_INFO_CLASS, () -> query(share, file, FS, 99, 256));
        assertStatus(NtStatus.NOT_SUPPORTED, () -> query(share, file, FS, 8, 256));
    }

    @Test
    void attributeClassesNeedFileReadAttributes() throws Exception {
        OpenFile dataOnly = open(share, "dir\\file.bin", FILE_READ_DATA, OPEN, 0);
        assertStatus(NtStatus.ACCESS_DENIED, () -> query(share, dataOnly, FILE, 4, 40));
        assertEquals(24, query(share, dataOnly, FILE, 5, 24).remaining(), "FileStandardInformation needs no right");
    }

    // --- file system ([MS-FSCC] 2.5)

    @Test
    void fileFsVolumeInformationCarriesTheShareNameAsLabel() throws Exception {
        ByteBuffer b = query(share, file, FS, 1, 256); // 2.5.9
        assertEquals(18 + 8, b.remaining());
        assertEquals(8, b.getInt(12), "VolumeLabelLength");
        assertEquals(0, b.get(16), "SupportsObjects");
        assertEquals("data", utf16(b, 18, 8));
    }

    @Test
    void aVolumeLabelCutAnswersBufferOverflowWithTheFixedPartAndWhatFits() throws Exception {
        ByteBuffer out = ByteBuffer.allocate(20);
        assertStatus(NtStatus.BUFFER_OVERFLOW, () -> share.queryInfo(file, FS, 1, 0, out));
        assertEquals(20, out.position());
        out.flip();
        assertEquals(8, out.order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(12), "the label's whole length");
        assertEquals("d", utf16(out, 18, 2));
        assertStatus(NtStatus.INFO_LENGTH_MISMATCH, () -> share.queryInfo(file, FS, 1, 0, ByteBuffer.allocate(17)));
    }

    @Test
    void theResultIsWrittenAtTheBuffersPositionAndAdvancesIt() throws Exception {
        ByteBuffer out = ByteBuffer.allocate(64);
        out.position(8);
        share.queryInfo(file, FILE, 6, 0, out.limit(16));
        assertEquals(16, out.position());
        assertEquals(ino, out.order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(8));
    }

    @Test
    void fileFsSizeAndFullSizeInformationAgreeWithTheFileStore() throws Exception {
        var store = Files.getFileStore(root);
        ByteBuffer s = query(share, file, FS, 3, 24); // 2.5.8
        assertEquals(24, s.remaining());
        long unit = (long) s.getInt(16) * s.getInt(20);
        assertEquals(512, s.getInt(20), "BytesPerSector");
        assertEquals(store.getTotalSpace() / unit, s.getLong(0), "TotalAllocationUnits");
        assertTrue(s.getLong(8) <= s.getLong(0));
        ByteBuffer f = query(share, file, FS, 7, 32); // 2.5.4
        assertEquals(32, f.remaining());
        assertEquals(s.getLong(0), f.getLong(0));
        assertTrue(f.getLong(8) <= f.getLong(16) || f.getLong(8) <= f.getLong(0));
        assertEquals(s.getInt(16), f.getInt(24));
        assertEquals(512, f.getInt(28));
    }

    @Test
    void fileFsDeviceInformationIsADiskAndReadOnlyWhenTheShareIs() throws Exception {
        ByteBuffer b = query(share, file, FS, 4, 8); // 2.5.10
        assertEquals(7, b.getInt(0), "FILE_DEVICE_DISK");
        assertEquals(0, b.getInt(4) & 0x2);
        Share ro = new Share("ro", root, true);
        assertEquals(0x2, query(ro, openRead(ro, "dir"), FS, 4, 8).getInt(4) & 0x2, "FILE_READ_ONLY_DEVICE");
    }

    @Test
    void fileFsAttributeInformationSaysCaseSensitiveUnicodeNtfs() throws Exception {
        ByteBuffer b = query(share, file, FS, 5, 256); // 2.5.1
        assertEquals(12 + 8, b.remaining());
        assertEquals(0x7, b.getInt(0), "CASE_SENSITIVE_SEARCH | CASE_PRESERVED_NAMES | UNICODE_ON_DISK");
        assertEquals(255, b.getInt(4));
        assertEquals(8, b.getInt(8));
        assertEquals("NTFS", utf16(b, 12, 8));
    }

    @Test
    void fileFsSectorSizeInformationIs28Bytes() throws Exception {
        ByteBuffer b = query(share, file, FS, 11, 28); // 2.5.7
        assertEquals(28, b.remaining());
        assertEquals(512, b.getInt(0));
    }

    // --- security ([MS-DTYP] 2.4.6)

    @Test
    void theSecurityDescriptorIsSelfRelativeWithOwnerGroupAndADaclForEveryone() throws Exception {
        OpenFile f = open(share, "dir\\file.bin", READ_CONTROL, OPEN, 0);
        ByteBuffer out = ByteBuffer.allocate(256);
        share.queryInfo(f, SECURITY, 0, 0x7, out);
        out.flip();
        ByteBuffer b = out.order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int uid = (Integer) Files.getAttribute(root.resolve("dir/file.bin"), "unix:uid");
        assertEquals(1, b.get(0), "Revision");
        assertEquals(0x8004, b.getShort(2) & 0xFFFF, "SE_SELF_RELATIVE | SE_DACL_PRESENT");
        assertEquals(20, b.getInt(4), "OffsetOwner");
        assertEquals(0, b.getInt(12), "no SACL");
        byte[] owner = new byte[16];
        b.get(20, owner);
        ByteBuffer expectedOwner = le(16).put((byte) 1).put((byte) 2).put(new byte[] {0, 0, 0, 0, 0, 22}).putInt(1).putInt(uid);
        assertArrayEquals(expectedOwner.array(), owner, "S-1-22-1-uid");
        assertEquals(36, b.getInt(8), "OffsetGroup after the owner");
        int dacl = b.getInt(16);
        assertEquals(2, b.get(dacl), "AclRevision");
        assertEquals(1, b.getShort(dacl + 4), "AceCount");
        assertEquals(0, b.get(dacl + 8), "ACCESS_ALLOWED_ACE_TYPE");
        assertEquals(0x001F01FF, b.getInt(dacl + 12));
        byte[] everyone = new byte[12];
        b.get(dacl + 16, everyone);
        assertArrayEquals(new byte[] {1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}, everyone, "S-1-1-0");
        assertEquals(dacl + 28, b.remaining());
        assertStatus(NtStatus.BUFFER_TOO_SMALL, () -> share.queryInfo(f, SECURITY, 0, 0x7, ByteBuffer.allocate(20)));
        OpenFile dataOnly = open(share, "dir\\file.bin", FILE_READ_DATA, OPEN, 0);
        assertStatus(NtStatus.ACCESS_DENIED, () -> share.queryInfo(dataOnly, SECURITY, 0, 0x7, ByteBuffer.allocate(256)));
    }
}
