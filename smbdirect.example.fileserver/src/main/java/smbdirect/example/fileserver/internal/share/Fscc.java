package smbdirect.example.fileserver.internal.share;

/**
 * The numbers of [MS-FSCC] and [MS-DTYP] the share uses: access rights (2.4.2 / [MS-SMB2]
 * 2.2.13.1.1), file attributes (2.6), CREATE options and dispositions ([MS-SMB2] 2.2.13),
 * information classes (2.4, 2.5) and FILETIME.
 */
public final class Fscc {

    // access mask ([MS-SMB2] 2.2.13.1.1)
    public static final int FILE_READ_DATA = 0x0001;
    public static final int FILE_LIST_DIRECTORY = 0x0001;
    public static final int FILE_WRITE_DATA = 0x0002;
    public static final int FILE_ADD_FILE = 0x0002;
    public static final int FILE_APPEND_DATA = 0x0004;
    public static final int FILE_ADD_SUBDIRECTORY = 0x0004;
    public static final int FILE_READ_EA = 0x0008;
    public static final int FILE_WRITE_EA = 0x0010;
    public static final int FILE_EXECUTE = 0x0020;
    public static final int FILE_TRAVERSE = 0x0020;
    public static final int FILE_DELETE_CHILD = 0x0040;
    public static final int FILE_READ_ATTRIBUTES = 0x0080;
    public static final int FILE_WRITE_ATTRIBUTES = 0x0100;
    public static final int DELETE = 0x00010000;
    public static final int READ_CONTROL = 0x00020000;
    public static final int WRITE_DAC = 0x00040000;
    public static final int WRITE_OWNER = 0x00080000;
    public static final int SYNCHRONIZE = 0x00100000;
    public static final int ACCESS_SYSTEM_SECURITY = 0x01000000;
    public static final int MAXIMUM_ALLOWED = 0x02000000;
    public static final int GENERIC_ALL = 0x10000000;
    public static final int GENERIC_EXECUTE = 0x20000000;
    public static final int GENERIC_WRITE = 0x40000000;
    public static final int GENERIC_READ = 0x80000000;
    /** Every specific and standard right of a file. */
    public static final int FILE_ALL_ACCESS = 0x001F01FF;
    public static final int FILE_GENERIC_READ = 0x00120089;
    public static final int FILE_GENERIC_WRITE = 0x00120116;
    public static final int FILE_GENERIC_EXECUTE = 0x001200A0;
    /** The rights that change something: refused on a read-only share. */
    public static final int WRITE_RIGHTS = FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA | FILE_DELETE_CHILD
            | FILE_WRITE_ATTRIBUTES | DELETE | WRITE_DAC | WRITE_OWNER;

    // file attributes ([MS-FSCC] 2.6)
    public static final int ATTR_READONLY = 0x0001;
    public static final int ATTR_HIDDEN = 0x0002;
    public static final int ATTR_SYSTEM = 0x0004;
    public static final int ATTR_DIRECTORY = 0x0010;
    public static final int ATTR_ARCHIVE = 0x0020;
    public static final int ATTR_NORMAL = 0x0080;

    // CREATE ([MS-SMB2] 2.2.13)
    public static final int FILE_SUPERSEDE = 0;
    public static final int FILE_OPEN = 1;
    public static final int FILE_CREATE = 2;
    public static final int FILE_OPEN_IF = 3;
    public static final int FILE_OVERWRITE = 4;
    public static final int FILE_OVERWRITE_IF = 5;
    public static final int FILE_DIRECTORY_FILE = 0x00000001;
    public static final int FILE_WRITE_THROUGH = 0x00000002;
    public static final int FILE_SEQUENTIAL_ONLY = 0x00000004;
    public static final int FILE_NO_INTERMEDIATE_BUFFERING = 0x00000008;
    public static final int FILE_SYNCHRONOUS_IO_ALERT = 0x00000010;
    public static final int FILE_SYNCHRONOUS_IO_NONALERT = 0x00000020;
    public static final int FILE_NON_DIRECTORY_FILE = 0x00000040;
    public static final int FILE_DELETE_ON_CLOSE = 0x00001000;
    public static final int FILE_OPEN_REPARSE_POINT = 0x00200000;
    /** The options FileModeInformation reports ([MS-FSCC] 2.4.26). */
    public static final int MODE_OPTIONS = FILE_WRITE_THROUGH | FILE_SEQUENTIAL_ONLY | FILE_NO_INTERMEDIATE_BUFFERING
            | FILE_SYNCHRONOUS_IO_ALERT | FILE_SYNCHRONOUS_IO_NONALERT | FILE_DELETE_ON_CLOSE;
    public static final int FILE_SUPERSEDED = 0;
    public static final int FILE_OPENED = 1;
    public static final int FILE_CREATED = 2;
    public static final int FILE_OVERWRITTEN = 3;

    // QUERY_INFO / SET_INFO InfoType ([MS-SMB2] 2.2.37)
    public static final int INFO_FILE = 1;
    public static final int INFO_FILESYSTEM = 2;
    public static final int INFO_SECURITY = 3;

    // file information classes ([MS-FSCC] 2.4)
    public static final int FileDirectoryInformation = 1;
    public static final int FileFullDirectoryInformation = 2;
    public static final int FileBothDirectoryInformation = 3;
    public static final int FileBasicInformation = 4;
    public static final int FileStandardInformation = 5;
    public static final int FileInternalInformation = 6;
    public static final int FileEaInformation = 7;
    public static final int FileAccessInformation = 8;
    public static final int FileNameInformation = 9;
    public static final int FileRenameInformation = 10;
    public static final int FileNamesInformation = 12;
    public static final int FileDispositionInformation = 13;
    public static final int FilePositionInformation = 14;
    public static final int FileModeInformation = 16;
    public static final int FileAlignmentInformation = 17;
    public static final int FileAllInformation = 18;
    public static final int FileAllocationInformation = 19;
    public static final int FileEndOfFileInformation = 20;
    public static final int FileAlternateNameInformation = 21;
    public static final int FileStreamInformation = 22;
    public static final int FileCompressionInformation = 28;
    public static final int FileNetworkOpenInformation = 34;
    public static final int FileAttributeTagInformation = 35;
    public static final int FileIdBothDirectoryInformation = 37;
    public static final int FileIdFullDirectoryInformation = 38;
    public static final int FileNormalizedNameInformation = 48;
    public static final int FileDispositionInformationEx = 64;

    // file system information classes ([MS-FSCC] 2.5)
    public static final int FileFsVolumeInformation = 1;
    public static final int FileFsSizeInformation = 3;
    public static final int FileFsDeviceInformation = 4;
    public static final int FileFsAttributeInformation = 5;
    public static final int FileFsFullSizeInformation = 7;
    public static final int FileFsObjectIdInformation = 8;
    public static final int FileFsSectorSizeInformation = 11;

    /** 100 ns intervals between 1601-01-01 and 1970-01-01 UTC. */
    private static final long EPOCH_DIFF_100NS = 116_444_736_000_000_000L;

    private Fscc() {
    }

    /** A FILETIME ([MS-DTYP] 2.3.3) of a Java time. */
    public static long filetime(java.nio.file.attribute.FileTime t) {
        java.time.Instant i = t.toInstant();
        return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 10_000_000L), i.getNano() / 100) + EPOCH_DIFF_100NS;
    }

    /** The Java time of a FILETIME. */
    public static java.nio.file.attribute.FileTime fileTime(long filetime) {
        long since1970 = filetime - EPOCH_DIFF_100NS;
        return java.nio.file.attribute.FileTime.from(java.time.Instant.ofEpochSecond(
                Math.floorDiv(since1970, 10_000_000L), Math.floorMod(since1970, 10_000_000L) * 100));
    }

    /** Generic rights mapped to file rights ([MS-SMB2] 2.2.13.1.1, [MS-DTYP] 2.4.3), MAXIMUM_ALLOWED kept. */
    public static int mapGeneric(int access) {
        int mapped = access & ~(GENERIC_ALL | GENERIC_EXECUTE | GENERIC_WRITE | GENERIC_READ);
        if ((access & GENERIC_READ) != 0) {
            mapped |= FILE_GENERIC_READ;
        }
        if ((access & GENERIC_WRITE) != 0) {
            mapped |= FILE_GENERIC_WRITE;
        }
        if ((access & GENERIC_EXECUTE) != 0) {
            mapped |= FILE_GENERIC_EXECUTE;
        }
        if ((access & GENERIC_ALL) != 0) {
            mapped |= FILE_ALL_ACCESS;
        }
        return mapped;
    }
}
