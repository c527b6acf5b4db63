package smbdirect.example.fileserver.internal.smb2;

/** The NTSTATUS values this server answers with ([MS-ERREF] 2.3.1), and their names for the log. */
public final class NtStatus {

    public static final int SUCCESS = 0x00000000;
    public static final int PENDING = 0x00000103;
    public static final int NOTIFY_ENUM_DIR = 0x0000010C;
    public static final int BUFFER_OVERFLOW = 0x80000005;
    public static final int NO_MORE_FILES = 0x80000006;
    public static final int UNSUCCESSFUL = 0xC0000001;
    public static final int NOT_IMPLEMENTED = 0xC0000002;
    public static final int INVALID_INFO_CLASS = 0xC0000003;
    public static final int INFO_LENGTH_MISMATCH = 0xC0000004;
    public static final int INVALID_HANDLE = 0xC0000008;
    public static final int INVALID_PARAMETER = 0xC000000D;
    public static final int NO_SUCH_FILE = 0xC000000F;
    public static final int INVALID_DEVICE_REQUEST = 0xC0000010;
    public static final int END_OF_FILE = 0xC0000011;
    public static final int MORE_PROCESSING_REQUIRED = 0xC0000016;
    public static final int ACCESS_DENIED = 0xC0000022;
    public static final int BUFFER_TOO_SMALL = 0xC0000023;
    public static final int OBJECT_NAME_INVALID = 0xC0000033;
    public static final int OBJECT_NAME_NOT_FOUND = 0xC0000034;
    public static final int OBJECT_NAME_COLLISION = 0xC0000035;
    public static final int OBJECT_PATH_INVALID = 0xC0000039;
    public static final int OBJECT_PATH_NOT_FOUND = 0xC000003A;
    public static final int OBJECT_PATH_SYNTAX_BAD = 0xC000003B;
    public static final int SHARING_VIOLATION = 0xC0000043;
    public static final int DELETE_PENDING = 0xC0000056;
    public static final int PRIVILEGE_NOT_HELD = 0xC0000061;
    public static final int LOGON_FAILURE = 0xC000006D;
    public static final int DISK_FULL = 0xC000007F;
    public static final int INSUFFICIENT_RESOURCES = 0xC000009A;
    public static final int MEDIA_WRITE_PROTECTED = 0xC00000A2;
    public static final int FILE_IS_A_DIRECTORY = 0xC00000BA;
    public static final int NOT_SUPPORTED = 0xC00000BB;
    public static final int NETWORK_NAME_DELETED = 0xC00000C9;
    public static final int BAD_NETWORK_NAME = 0xC00000CC;
    public static final int REQUEST_NOT_ACCEPTED = 0xC00000D0;
    public static final int INTERNAL_ERROR = 0xC00000E5;
    public static final int DIRECTORY_NOT_EMPTY = 0xC0000101;
    public static final int NOT_A_DIRECTORY = 0xC0000103;
    public static final int CANCELLED = 0xC0000120;
    public static final int FILE_CLOSED = 0xC0000128;
    public static final int USER_SESSION_DELETED = 0xC0000203;
    public static final int INVALID_BUFFER_SIZE = 0xC0000206;
    public static final int NOT_FOUND = 0xC0000225;
    public static final int STOPPED_ON_SYMLINK = 0x8000002D;
    public static final int NETWORK_SESSION_EXPIRED = 0xC000035C;
    public static final int FS_DRIVER_REQUIRED = 0xC000019C;
    public static final int NOT_A_REPARSE_POINT = 0xC0000275;
    public static final int FILE_LOCK_CONFLICT = 0xC0000054;
    public static final int LOCK_NOT_GRANTED = 0xC0000055;
    public static final int RANGE_NOT_LOCKED = 0xC000007E;
    public static final int INVALID_OPLOCK_PROTOCOL = 0xC00000E3;
    public static final int NO_PREAUTH_INTEGRITY_HASH_OVERLAP = 0xC05D0000;

    private NtStatus() {
    }

    /** {@code STATUS_NAME} of a known value, else its hexadecimal form. */
    public static String name(int status) {
        for (java.lang.reflect.Field f : NtStatus.class.getFields()) {
            try {
                if (f.getType() == int.class && f.getInt(null) == status) {
                    return "STATUS_" + f.getName();
                }
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
        }
        return String.format("0x%08X", status);
    }
}
