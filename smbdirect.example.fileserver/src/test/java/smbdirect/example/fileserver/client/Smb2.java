package smbdirect.example.fileserver.client;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

import smbdirect.api.BufferDescriptor;

/**
 * The SMB2 wire format as the test client writes and reads it, from [MS-SMB2] 2.2: the 64-byte
 * sync header (2.2.1.2), the request bodies of every command the client sends and the constants
 * it uses. Written from the specification, independent of the server's codec, so that the tests
 * judge the server rather than agree with it. Static, thread-safe.
 */
public final class Smb2 {

    /** 0xFE 'S' 'M' 'B' as a little-endian int. */
    public static final int PROTOCOL_ID = 0x424D53FE;
    public static final int HEADER_SIZE = 64;

    // Commands, [MS-SMB2] 2.2.1.2
    public static final int NEGOTIATE = 0x0000;
    public static final int SESSION_SETUP = 0x0001;
    public static final int LOGOFF = 0x0002;
    public static final int TREE_CONNECT = 0x0003;
    public static final int TREE_DISCONNECT = 0x0004;
    public static final int CREATE = 0x0005;
    public static final int CLOSE = 0x0006;
    public static final int FLUSH = 0x0007;
    public static final int READ = 0x0008;
    public static final int WRITE = 0x0009;
    public static final int LOCK = 0x000A;
    public static final int IOCTL = 0x000B;
    public static final int CANCEL = 0x000C;
    public static final int ECHO = 0x000D;
    public static final int QUERY_DIRECTORY = 0x000E;
    public static final int CHANGE_NOTIFY = 0x000F;
    public static final int QUERY_INFO = 0x0010;
    public static final int SET_INFO = 0x0011;
    public static final int OPLOCK_BREAK = 0x0012;

    // Header flags
    public static final int FLAGS_SERVER_TO_REDIR = 0x00000001;
    public static final int FLAGS_ASYNC_COMMAND = 0x00000002;
    public static final int FLAGS_RELATED_OPERATIONS = 0x00000004;
    public static final int FLAGS_SIGNED = 0x00000008;

    // Dialects
    public static final int DIALECT_202 = 0x0202;
    public static final int DIALECT_210 = 0x0210;
    public static final int DIALECT_300 = 0x0300;
    public static final int DIALECT_302 = 0x0302;
    public static final int DIALECT_311 = 0x0311;

    // SecurityMode (2.2.3)
    public static final int SIGNING_ENABLED = 0x0001;
    public static final int SIGNING_REQUIRED = 0x0002;

    // Capabilities (2.2.3)
    public static final int CAP_DFS = 0x01;
    public static final int CAP_LEASING = 0x02;
    public static final int CAP_LARGE_MTU = 0x04;
    public static final int CAP_MULTI_CHANNEL = 0x08;
    public static final int CAP_PERSISTENT_HANDLES = 0x10;
    public static final int CAP_DIRECTORY_LEASING = 0x20;
    public static final int CAP_ENCRYPTION = 0x40;

    // Negotiate contexts (2.2.3.1)
    public static final int PREAUTH_INTEGRITY_CAPABILITIES = 0x0001;
    public static final int ENCRYPTION_CAPABILITIES = 0x0002;
    public static final int SIGNING_CAPABILITIES = 0x0008;
    public static final int RDMA_TRANSFORM_CAPABILITIES = 0x0007;
    public static final int HASH_SHA512 = 0x0001;

    // SessionFlags (2.2.6)
    public static final int SESSION_FLAG_IS_GUEST = 0x0001;
    public static final int SESSION_FLAG_IS_NULL = 0x0002;
    public static final int SESSION_FLAG_ENCRYPT_DATA = 0x0004;

    // ShareType (2.2.10)
    public static final int SHARE_TYPE_DISK = 0x01;
    public static final int SHARE_TYPE_PIPE = 0x02;

    // Access masks (2.2.13.1)
    public static final int FILE_READ_DATA = 0x00000001;
    public static final int FILE_WRITE_DATA = 0x00000002;
    public static final int FILE_APPEND_DATA = 0x00000004;
    public static final int FILE_READ_EA = 0x00000008;
    public static final int FILE_WRITE_EA = 0x00000010;
    public static final int FILE_READ_ATTRIBUTES = 0x00000080;
    public static final int FILE_WRITE_ATTRIBUTES = 0x00000100;
    public static final int DELETE = 0x00010000;
    public static final int READ_CONTROL = 0x00020000;
    public static final int SYNCHRONIZE = 0x00100000;
    public static final int MAXIMUM_ALLOWED = 0x02000000;
    public static final int GENERIC_ALL = 0x10000000;
    public static final int GENERIC_WRITE = 0x40000000;
    public static final int GENERIC_READ = 0x80000000;
    /** FILE_GENERIC_READ | FILE_GENERIC_WRITE. */
    public static final int READ_WRITE = 0x0012019F;
    /** FILE_GENERIC_READ. */
    public static final int READ_ONLY = 0x00120089;

    // ShareAccess
    public static final int SHARE_ALL = 0x7;

    // CreateDisposition
    public static final int FILE_SUPERSEDE = 0;
    public static final int FILE_OPEN = 1;
    public static final int FILE_CREATE = 2;
    public static final int FILE_OPEN_IF = 3;
    public static final int FILE_OVERWRITE = 4;
    public static final int FILE_OVERWRITE_IF = 5;

    // CreateAction (2.2.14)
    public static final int FILE_SUPERSEDED = 0;
    public static final int FILE_OPENED = 1;
    public static final int FILE_CREATED = 2;
    public static final int FILE_OVERWRITTEN = 3;

    // CreateOptions
    public static final int FILE_DIRECTORY_FILE = 0x00000001;
    public static final int FILE_NON_DIRECTORY_FILE = 0x00000040;
    public static final int FILE_DELETE_ON_CLOSE = 0x00001000;

    // File attributes ([MS-FSCC] 2.6)
    public static final int FILE_ATTRIBUTE_READONLY = 0x01;
    public static final int FILE_ATTRIBUTE_DIRECTORY = 0x10;
    public static final int FILE_ATTRIBUTE_ARCHIVE = 0x20;
    public static final int FILE_ATTRIBUTE_NORMAL = 0x80;

    // READ/WRITE Channel (2.2.19, 2.2.21)
    public static final int CHANNEL_NONE = 0;
    public static final int CHANNEL_RDMA_V1 = 1;
    public static final int CHANNEL_RDMA_V1_INVALIDATE = 2;

    // CLOSE flags
    public static final int CLOSE_FLAG_POSTQUERY_ATTRIB = 0x0001;

    // QUERY_INFO / SET_INFO InfoType (2.2.37)
    public static final int INFO_FILE = 1;
    public static final int INFO_FILESYSTEM = 2;
    public static final int INFO_SECURITY = 3;

    // [MS-FSCC] 2.4 file information classes
    public static final int FILE_DIRECTORY_INFORMATION = 1;
    public static final int FILE_FULL_DIRECTORY_INFORMATION = 2;
    public static final int FILE_BOTH_DIRECTORY_INFORMATION = 3;
    public static final int FILE_BASIC_INFORMATION = 4;
    public static final int FILE_STANDARD_INFORMATION = 5;
    public static final int FILE_INTERNAL_INFORMATION = 6;
    public static final int FILE_EA_INFORMATION = 7;
    public static final int FILE_NAMES_INFORMATION = 12;
    public static final int FILE_RENAME_INFORMATION = 10;
    public static final int FILE_DISPOSITION_INFORMATION = 13;
    public static final int FILE_POSITION_INFORMATION = 14;
    public static final int FILE_ALL_INFORMATION = 18;
    public static final int FILE_END_OF_FILE_INFORMATION = 20;
    public static final int FILE_ID_BOTH_DIRECTORY_INFORMATION = 37;
    public static final int FILE_ID_FULL_DIRECTORY_INFORMATION = 38;
    public static final int FILE_NETWORK_OPEN_INFORMATION = 34;
    public static final int FILE_ATTRIBUTE_TAG_INFORMATION = 35;

    // [MS-FSCC] 2.5 file system information classes
    public static final int FILE_FS_VOLUME_INFORMATION = 1;
    public static final int FILE_FS_SIZE_INFORMATION = 3;
    public static final int FILE_FS_DEVICE_INFORMATION = 4;
    public static final int FILE_FS_ATTRIBUTE_INFORMATION = 5;
    public static final int FILE_FS_FULL_SIZE_INFORMATION = 7;

    // QUERY_DIRECTORY Flags (2.2.33)
    public static final int RESTART_SCANS = 0x01;
    public static final int RETURN_SINGLE_ENTRY = 0x02;
    public static final int INDEX_SPECIFIED = 0x04;
    public static final int REOPEN = 0x10;

    // IOCTL (2.2.31)
    public static final int IOCTL_IS_FSCTL = 0x00000001;
    public static final int FSCTL_VALIDATE_NEGOTIATE_INFO = 0x00140204;
    public static final int FSCTL_QUERY_NETWORK_INTERFACE_INFO = 0x001401FC;
    public static final int FSCTL_DFS_GET_REFERRALS = 0x00060194;

    /** The FileId 0xFFFFFFFFFFFFFFFF twice: "the file of the previous request" in a related compound (3.2.4.1.4). */
    public static final byte[] RELATED_FILE_ID = filled(16, (byte) 0xFF);

    private Smb2() {
    }

    static byte[] filled(int n, byte v) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, v);
        return b;
    }

    public static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    public static ByteBuffer le(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    public static byte[] utf16(String s) {
        return s.getBytes(StandardCharsets.UTF_16LE);
    }

    /** One request body and what the client needs to frame it. */
    public record Body(int command, byte[] bytes, int creditCharge) {
        public Body(int command, byte[] bytes) {
            this(command, bytes, 1);
        }
    }

    /**
     * The 64-byte sync header of a request ([MS-SMB2] 2.2.1.2): ProtocolId, StructureSize 64,
     * CreditCharge, Status 0 (ChannelSequence), Command, CreditRequest, Flags, NextCommand,
     * MessageId, Reserved, TreeId, SessionId, Signature 0.
     */
    public static void putHeader(ByteBuffer b, int command, int creditCharge, int creditRequest, int flags,
            int nextCommand, long messageId, int treeId, long sessionId) {
        b.putInt(PROTOCOL_ID).putShort((short) HEADER_SIZE).putShort((short) creditCharge).putInt(0)
                .putShort((short) command).putShort((short) creditRequest).putInt(flags).putInt(nextCommand)
                .putLong(messageId).putInt(0).putInt(treeId).putLong(sessionId).put(new byte[16]);
    }

    /**
     * NEGOTIATE ([MS-SMB2] 2.2.3) with {@code dialects}; with 3.1.1 among them, the negotiate contexts
     * follow (2.2.3.1).
     */
    public static byte[] negotiate(int[] dialects, int securityMode, int capabilities, byte[] clientGuid,
            byte[] preauthSalt, boolean offerEncryption) {
        boolean smb311 = java.util.Arrays.stream(dialects).anyMatch(d -> d == DIALECT_311);
        int fixed = 36 + 2 * dialects.length;
        byte[] contexts = smb311 ? negotiateContexts(preauthSalt, offerEncryption) : new byte[0];
        int contextStart = smb311 ? align8(HEADER_SIZE + fixed) - HEADER_SIZE : fixed;
        ByteBuffer b = le(contextStart + contexts.length);
        b.putShort((short) 36).putShort((short) dialects.length).putShort((short) securityMode).putShort((short) 0)
                .putInt(capabilities).put(clientGuid, 0, 16);
        if (smb311) {
            b.putInt(HEADER_SIZE + contextStart).putShort((short) (offerEncryption ? 3 : 2)).putShort((short) 0);
        } else {
            b.putLong(0); // ClientStartTime
        }
        for (int d : dialects) {
            b.putShort((short) d);
        }
        b.position(contextStart);
        b.put(contexts);
        return b.array();
    }

    /**
     * NEGOTIATE for 3.1.1 with the negotiate contexts given as they go on the wire (type, data),
     * each 8-byte aligned: what a client with more to offer (Linux cifs) sends.
     */
    public static byte[] negotiate311(int[] dialects, int securityMode, int capabilities, byte[] clientGuid,
            List<int[]> contextTypes, List<byte[]> contextData) {
        int fixed = 36 + 2 * dialects.length;
        int contextStart = align8(HEADER_SIZE + fixed) - HEADER_SIZE;
        ByteBuffer c = le(4096);
        for (int i = 0; i < contextTypes.size(); i++) {
            c.position(align8(c.position()));
            putContext(c, contextTypes.get(i)[0], contextData.get(i));
        }
        ByteBuffer b = le(contextStart + c.position());
        b.putShort((short) 36).putShort((short) dialects.length).putShort((short) securityMode).putShort((short) 0)
                .putInt(capabilities).put(clientGuid, 0, 16).putInt(HEADER_SIZE + contextStart)
                .putShort((short) contextTypes.size()).putShort((short) 0);
        for (int d : dialects) {
            b.putShort((short) d);
        }
        b.position(contextStart);
        b.put(c.array(), 0, c.position());
        return b.array();
    }

    /**
     * PREAUTH_INTEGRITY (SHA-512, the salt), SIGNING (AES-CMAC) and, when asked, ENCRYPTION
     * (AES-128-GCM, -CCM), each 8-byte aligned.
     */
    private static byte[] negotiateContexts(byte[] salt, boolean offerEncryption) {
        ByteBuffer b = le(256);
        putContext(b, PREAUTH_INTEGRITY_CAPABILITIES, le(6 + salt.length).putShort((short) 1)
                .putShort((short) salt.length).putShort((short) HASH_SHA512).put(salt).array());
        b.position(align8(b.position()));
        putContext(b, SIGNING_CAPABILITIES, le(4).putShort((short) 1).putShort((short) 0x0001).array());
        if (offerEncryption) {
            b.position(align8(b.position()));
            putContext(b, ENCRYPTION_CAPABILITIES, le(6).putShort((short) 2).putShort((short) 0x0002)
                    .putShort((short) 0x0001).array());
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    private static void putContext(ByteBuffer b, int type, byte[] data) {
        b.putShort((short) type).putShort((short) data.length).putInt(0).put(data);
    }

    public static int align8(int n) {
        return (n + 7) & ~7;
    }

    /** SESSION_SETUP ([MS-SMB2] 2.2.5) carrying {@code token}. */
    public static Body sessionSetup(int securityMode, byte[] token) {
        ByteBuffer b = le(24 + token.length);
        b.putShort((short) 25).put((byte) 0).put((byte) securityMode).putInt(0).putInt(0)
                .putShort((short) (HEADER_SIZE + 24)).putShort((short) token.length).putLong(0).put(token);
        return new Body(SESSION_SETUP, b.array());
    }

    /** LOGOFF, TREE_DISCONNECT, ECHO: StructureSize 4 and a reserved field. */
    public static Body empty(int command) {
        return new Body(command, le(4).putShort((short) 4).putShort((short) 0).array());
    }

    /** TREE_CONNECT ([MS-SMB2] 2.2.9) to {@code path} (\\server\share). */
    public static Body treeConnect(String path) {
        byte[] name = utf16(path);
        ByteBuffer b = le(8 + name.length);
        b.putShort((short) 9).putShort((short) 0).putShort((short) (HEADER_SIZE + 8)).putShort((short) name.length)
                .put(name);
        return new Body(TREE_CONNECT, b.array());
    }

    /** CREATE ([MS-SMB2] 2.2.13): no oplock, no lease, no create contexts. */
    public static Body create(String name, int desiredAccess, int fileAttributes, int shareAccess, int disposition,
            int createOptions) {
        byte[] n = utf16(name);
        ByteBuffer b = le(56 + Math.max(1, n.length));
        b.putShort((short) 57).put((byte) 0).put((byte) 0).putInt(2).putLong(0).putLong(0).putInt(desiredAccess)
                .putInt(fileAttributes).putInt(shareAccess).putInt(disposition).putInt(createOptions)
                .putShort((short) (HEADER_SIZE + 56)).putShort((short) n.length).putInt(0).putInt(0).put(n);
        return new Body(CREATE, b.array());
    }

    /**
     * CREATE ([MS-SMB2] 2.2.13) with a requested oplock level and create contexts (2.2.13.2), each
     * given as its 4-character name and data, chained 8-byte aligned.
     */
    public static Body create(String name, int desiredAccess, int fileAttributes, int shareAccess, int disposition,
            int createOptions, int oplockLevel, List<String> contextNames, List<byte[]> contextData) {
        byte[] n = utf16(name);
        ByteBuffer ctx = le(4096);
        int last = -1;
        for (int i = 0; i < contextNames.size(); i++) {
            int at = align8(ctx.position());
            if (last >= 0) {
                ctx.putInt(last, at - last);
            }
            ctx.position(at);
            byte[] cn = contextNames.get(i).getBytes(StandardCharsets.US_ASCII);
            byte[] data = contextData.get(i);
            int dataOffset = data.length == 0 ? 0 : align8(16 + cn.length);
            ctx.putInt(0).putShort((short) 16).putShort((short) cn.length).putShort((short) 0)
                    .putShort((short) dataOffset).putInt(data.length).put(cn);
            if (data.length > 0) {
                ctx.position(at + dataOffset);
                ctx.put(data);
            }
            last = at;
        }
        int nameArea = align8(Math.max(1, n.length));
        int contextsOffset = contextNames.isEmpty() ? 0 : HEADER_SIZE + 56 + nameArea;
        ByteBuffer b = le(56 + nameArea + ctx.position());
        b.putShort((short) 57).put((byte) 0).put((byte) oplockLevel).putInt(2).putLong(0).putLong(0)
                .putInt(desiredAccess).putInt(fileAttributes).putInt(shareAccess).putInt(disposition)
                .putInt(createOptions).putShort((short) (HEADER_SIZE + 56)).putShort((short) n.length)
                .putInt(contextsOffset).putInt(ctx.position()).put(n);
        b.position(56 + nameArea);
        b.put(ctx.array(), 0, ctx.position());
        return new Body(CREATE, b.array());
    }

    /** FileBasicInformation ([MS-FSCC] 2.4.7): times as FILETIME (0: leave unchanged), attributes (0: unchanged). */
    public static byte[] basicInformation(long creation, long lastAccess, long lastWrite, long change, int attributes) {
        return le(40).putLong(creation).putLong(lastAccess).putLong(lastWrite).putLong(change).putInt(attributes)
                .putInt(0).array();
    }

    /** FILETIME (100 ns since 1601-01-01) of a Java time in milliseconds. */
    public static long filetime(long epochMillis) {
        return epochMillis * 10_000L + 116_444_736_000_000_000L;
    }

    /** CLOSE ([MS-SMB2] 2.2.15). */
    public static Body close(byte[] fileId, int flags) {
        return new Body(CLOSE, le(24).putShort((short) 24).putShort((short) flags).putInt(0).put(fileId).array());
    }

    /** FLUSH ([MS-SMB2] 2.2.17). */
    public static Body flush(byte[] fileId) {
        return new Body(FLUSH, le(24).putShort((short) 24).putShort((short) 0).putInt(0).put(fileId).array());
    }

    /** [MS-SMB2] 3.2.4.1.5: one credit per 64 KiB started. */
    public static int charge(long length) {
        return (int) Math.max(1, (length + 65535) / 65536);
    }

    /** WRITE with the data in the message ([MS-SMB2] 2.2.21, Channel NONE). */
    public static Body writeInline(byte[] fileId, long offset, byte[] data) {
        ByteBuffer b = le(48 + Math.max(1, data.length));
        b.putShort((short) 49).putShort((short) (HEADER_SIZE + 48)).putInt(data.length).putLong(offset).put(fileId)
                .putInt(CHANNEL_NONE).putInt(0).putShort((short) 0).putShort((short) 0).putInt(0).put(data);
        return new Body(WRITE, b.array(), charge(data.length));
    }

    /**
     * WRITE with an RDMA channel ([MS-SMB2] 2.2.21, 3.2.4.7): no data in the message (DataOffset 0
     * and Length 0, as Linux cifs sends it), RemainingBytes the length the server RDMA-Reads from
     * the buffers {@code descriptors} describe (WriteChannelInfo).
     */
    public static Body writeRdma(byte[] fileId, long offset, int length, int channel,
            List<BufferDescriptor> descriptors) {
        int info = BufferDescriptor.BYTES * descriptors.size();
        ByteBuffer b = le(48 + info);
        b.putShort((short) 49).putShort((short) 0).putInt(0).putLong(offset).put(fileId).putInt(channel)
                .putInt(length).putShort((short) (HEADER_SIZE + 48)).putShort((short) info).putInt(0);
        for (BufferDescriptor d : descriptors) {
            d.encode(b);
        }
        return new Body(WRITE, b.array(), charge(Integer.toUnsignedLong(length)));
    }

    /** READ with the data in the response ([MS-SMB2] 2.2.19, Channel NONE). */
    public static Body readInline(byte[] fileId, long offset, int length, int minimumCount) {
        ByteBuffer b = le(49);
        b.putShort((short) 49).put((byte) 0).put((byte) 0).putInt(length).putLong(offset).put(fileId)
                .putInt(minimumCount).putInt(CHANNEL_NONE).putInt(0).putShort((short) 0).putShort((short) 0)
                .put((byte) 0);
        return new Body(READ, b.array(), charge(Integer.toUnsignedLong(length)));
    }

    /** READ whose data the server RDMA-Writes into the buffers {@code descriptors} describe (ReadChannelInfo). */
    public static Body readRdma(byte[] fileId, long offset, int length, int channel,
            List<BufferDescriptor> descriptors) {
        int info = BufferDescriptor.BYTES * descriptors.size();
        ByteBuffer b = le(48 + Math.max(1, info));
        b.putShort((short) 49).put((byte) 0).put((byte) 0).putInt(length).putLong(offset).put(fileId).putInt(0)
                .putInt(channel).putInt(0).putShort((short) (info == 0 ? 0 : HEADER_SIZE + 48))
                .putShort((short) info);
        for (BufferDescriptor d : descriptors) {
            d.encode(b);
        }
        return new Body(READ, b.array(), charge(Integer.toUnsignedLong(length)));
    }

    /** QUERY_INFO ([MS-SMB2] 2.2.37) without an input buffer. */
    public static Body queryInfo(byte[] fileId, int infoType, int infoClass, int outputBufferLength,
            int additionalInformation) {
        ByteBuffer b = le(40 + 1);
        b.putShort((short) 41).put((byte) infoType).put((byte) infoClass).putInt(outputBufferLength)
                .putShort((short) 0).putShort((short) 0).putInt(0).putInt(additionalInformation).putInt(0)
                .put(fileId).put((byte) 0);
        return new Body(QUERY_INFO, b.array(), charge(outputBufferLength));
    }

    /** SET_INFO ([MS-SMB2] 2.2.39) with {@code data}. */
    public static Body setInfo(byte[] fileId, int infoType, int infoClass, byte[] data) {
        ByteBuffer b = le(32 + Math.max(1, data.length));
        b.putShort((short) 33).put((byte) infoType).put((byte) infoClass).putInt(data.length)
                .putShort((short) (HEADER_SIZE + 32)).putShort((short) 0).putInt(0).put(fileId).put(data);
        return new Body(SET_INFO, b.array(), charge(data.length));
    }

    /** FileRenameInformation for SMB2 ([MS-FSCC] 2.4.37.2): ReplaceIfExists, RootDirectory 0, the new name. */
    public static byte[] renameInformation(String newName, boolean replaceIfExists) {
        byte[] n = utf16(newName);
        ByteBuffer b = le(20 + n.length);
        b.put((byte) (replaceIfExists ? 1 : 0)).put(new byte[7]).putLong(0).putInt(n.length).put(n);
        return b.array();
    }

    /** FileDispositionInformation ([MS-FSCC] 2.4.11). */
    public static byte[] dispositionInformation(boolean deletePending) {
        return new byte[] {(byte) (deletePending ? 1 : 0)};
    }

    /** FileEndOfFileInformation ([MS-FSCC] 2.4.14). */
    public static byte[] endOfFileInformation(long endOfFile) {
        return le(8).putLong(endOfFile).array();
    }

    /** QUERY_DIRECTORY ([MS-SMB2] 2.2.33). */
    public static Body queryDirectory(byte[] fileId, int infoClass, int flags, String pattern, int outputBufferLength) {
        byte[] n = utf16(pattern);
        ByteBuffer b = le(32 + Math.max(1, n.length));
        b.putShort((short) 33).put((byte) infoClass).put((byte) flags).putInt(0).put(fileId)
                .putShort((short) (HEADER_SIZE + 32)).putShort((short) n.length).putInt(outputBufferLength).put(n);
        return new Body(QUERY_DIRECTORY, b.array(), charge(outputBufferLength));
    }

    /** IOCTL ([MS-SMB2] 2.2.31) with {@code input}. */
    public static Body ioctl(int ctlCode, byte[] fileId, byte[] input, int maxOutputResponse, int flags) {
        ByteBuffer b = le(56 + Math.max(1, input.length));
        b.putShort((short) 57).putShort((short) 0).putInt(ctlCode).put(fileId)
                .putInt(input.length == 0 ? 0 : HEADER_SIZE + 56).putInt(input.length).putInt(0).putInt(0).putInt(0)
                .putInt(maxOutputResponse).putInt(flags).putInt(0).put(input);
        return new Body(IOCTL, b.array(), charge(Math.max(input.length, maxOutputResponse)));
    }

    /** CHANGE_NOTIFY ([MS-SMB2] 2.2.35). */
    public static Body changeNotify(byte[] fileId, int completionFilter, int outputBufferLength) {
        return new Body(CHANGE_NOTIFY, le(32).putShort((short) 32).putShort((short) 0).putInt(outputBufferLength)
                .put(fileId).putInt(completionFilter).putInt(0).array());
    }

    /** LOCK ([MS-SMB2] 2.2.26) of one range, exclusive, fail immediately. */
    public static Body lock(byte[] fileId, long offset, long length) {
        return new Body(LOCK, le(48).putShort((short) 48).putShort((short) 1).putInt(0).put(fileId)
                .putLong(offset).putLong(length).putInt(0x02 | 0x10).putInt(0).array());
    }
}
