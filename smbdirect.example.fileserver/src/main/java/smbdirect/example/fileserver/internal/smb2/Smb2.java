package smbdirect.example.fileserver.internal.smb2;

/** The numbers of [MS-SMB2] 2.2 this server uses: commands, header flags, dialects, request body sizes. */
public final class Smb2 {

    /** ProtocolId of an SMB2 header, read little-endian: 0xFE 'S' 'M' 'B' (2.2.1). */
    public static final int PROTOCOL_ID = 0x424D53FE;
    /** 0xFD 'S' 'M' 'B': a transform (encrypted) header (2.2.41). */
    public static final int TRANSFORM_ID = 0x424D53FD;
    /** 0xFC 'S' 'M' 'B': a compression transform header (2.2.42). */
    public static final int COMPRESSION_ID = 0x424D53FC;
    /** 0xFF 'S' 'M' 'B': an SMB1 header (the multi-protocol NEGOTIATE, 3.3.5.3). */
    public static final int SMB1_ID = 0x424D53FF;
    public static final int HEADER_SIZE = 64;

    public static final int NEGOTIATE = 0x00;
    public static final int SESSION_SETUP = 0x01;
    public static final int LOGOFF = 0x02;
    public static final int TREE_CONNECT = 0x03;
    public static final int TREE_DISCONNECT = 0x04;
    public static final int CREATE = 0x05;
    public static final int CLOSE = 0x06;
    public static final int FLUSH = 0x07;
    public static final int READ = 0x08;
    public static final int WRITE = 0x09;
    public static final int LOCK = 0x0A;
    public static final int IOCTL = 0x0B;
    public static final int CANCEL = 0x0C;
    public static final int ECHO = 0x0D;
    public static final int QUERY_DIRECTORY = 0x0E;
    public static final int CHANGE_NOTIFY = 0x0F;
    public static final int QUERY_INFO = 0x10;
    public static final int SET_INFO = 0x11;
    public static final int OPLOCK_BREAK = 0x12;

    private static final String[] NAMES = {"NEGOTIATE", "SESSION_SETUP", "LOGOFF", "TREE_CONNECT", "TREE_DISCONNECT",
        "CREATE", "CLOSE", "FLUSH", "READ", "WRITE", "LOCK", "IOCTL", "CANCEL", "ECHO", "QUERY_DIRECTORY",
        "CHANGE_NOTIFY", "QUERY_INFO", "SET_INFO", "OPLOCK_BREAK"};

    /** The StructureSize of each request body (2.2.3-2.2.39), by command; OPLOCK_BREAK also 36 (lease). */
    private static final int[] REQUEST_SIZES = {36, 25, 4, 9, 4, 57, 24, 24, 49, 49, 48, 57, 4, 4, 33, 32, 41, 33, 24};

    public static final int FLAGS_SERVER_TO_REDIR = 0x00000001;
    public static final int FLAGS_ASYNC_COMMAND = 0x00000002;
    public static final int FLAGS_RELATED_OPERATIONS = 0x00000004;
    public static final int FLAGS_SIGNED = 0x00000008;

    public static final int DIALECT_302 = 0x0302;
    public static final int DIALECT_311 = 0x0311;
    /** The wildcard revision of an SMB2 answer to a multi-protocol NEGOTIATE (3.3.5.3.1). */
    public static final int DIALECT_WILDCARD = 0x02FF;

    public static final int NEGOTIATE_SIGNING_ENABLED = 0x0001;
    public static final int NEGOTIATE_SIGNING_REQUIRED = 0x0002;
    public static final int GLOBAL_CAP_LARGE_MTU = 0x00000004;

    public static final int CHANNEL_NONE = 0;
    public static final int CHANNEL_RDMA_V1 = 1;
    public static final int CHANNEL_RDMA_V1_INVALIDATE = 2;

    /** A FileId field of all ones: "the FileId of the previous operation" in a related compound (3.3.5.2.7.2). */
    public static final long FILE_ID_PREVIOUS = 0xFFFFFFFFFFFFFFFFL;

    private Smb2() {
    }

    public static String commandName(int command) {
        return command >= 0 && command < NAMES.length ? NAMES[command] : String.format("0x%04X", command);
    }

    /** The request body StructureSize [MS-SMB2] requires for {@code command}, or -1 for an unknown command. */
    public static int requestStructureSize(int command) {
        return command >= 0 && command < REQUEST_SIZES.length ? REQUEST_SIZES[command] : -1;
    }

    public static String dialectName(int dialect) {
        return String.format("%d.%d.%d", dialect >> 8, (dialect >> 4) & 0xF, dialect & 0xF);
    }
}
