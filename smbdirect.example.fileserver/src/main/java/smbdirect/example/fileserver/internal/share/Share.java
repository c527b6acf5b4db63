package smbdirect.example.fileserver.internal.share;

import static smbdirect.example.fileserver.internal.share.Fscc.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.example.fileserver.internal.smb2.NtStatus;
import smbdirect.example.fileserver.internal.smb2.SmbStatusException;

/**
 * One directory served as one share: every name a client gives is resolved inside it (no
 * {@code ..}, no symbolic link leading out), and the file system's answers become SMB2 CREATE,
 * QUERY_INFO, SET_INFO, QUERY_DIRECTORY and CLOSE results ([MS-SMB2] 3.3.5.9-3.3.5.21, [MS-FSCC]
 * for the information classes). Thread-safe.
 *
 * <p>Names: backslash-separated, relative to the share's root; {@code .} and {@code ..}
 * components, the characters {@code / : * ? " < > |} and control characters are invalid
 * (STATUS_OBJECT_NAME_INVALID, as NTFS says; no streams). Case is the file system's (Linux:
 * case-sensitive). Every component but the last must be an existing directory
 * (STATUS_OBJECT_PATH_NOT_FOUND); the parent's real path, and the last component's when it is a
 * symbolic link, must lie inside the root's real path, else STATUS_ACCESS_DENIED: a link inside
 * the share is followed, one leading out or to nothing is refused. CREATE with
 * FILE_OPEN_REPARSE_POINT (Linux cifs's unlink) opens a link itself, wherever it points, without
 * data: deleting or renaming it acts on the link. Clients cannot make links (no reparse points),
 * so only a local user of the directory could swap one between the check and the use.
 *
 * <p>Files and directories that have opens are tracked as {@link Node}s under one lock: delete
 * pending (STATUS_DELETE_PENDING for new opens, deletion at the last close) and renames, which
 * move every open below the renamed name. Share modes are not enforced (every open shares
 * read, write and delete).
 */
public final class Share {

    private static final Logger LOG = LoggerFactory.getLogger(Share.class);

    private static final int MAX_COMPONENT = 255;
    private static final String INVALID_CHARS = "/:*?\"<>|";

    private final String name;
    private final Path root;
    private final boolean readOnly;
    private final Object lock = new Object();
    private final Map<Path, Node> nodes = new HashMap<>();

    public Share(String name, Path root, boolean readOnly) throws IOException {
        this.name = name;
        this.root = root.toRealPath();
        if (!Files.isDirectory(this.root)) {
            throw new NotDirectoryException(root.toString());
        }
        this.readOnly = readOnly;
    }

    public String name() {
        return name;
    }

    public boolean readOnly() {
        return readOnly;
    }

    // ---------------------------------------------------------------- names

    /**
     * The path of {@code smbName} inside the share: the real path of the parent joined with the
     * last component. When that component is a symbolic link and {@code followLast}, its target
     * must lie inside the share (the link's name is kept, so that a rename or delete acts on the
     * name the client gave, as on a Linux file system); without {@code followLast} the link
     * itself is meant (CREATE with FILE_OPEN_REPARSE_POINT).
     */
    Path resolve(String smbName, boolean followLast) throws SmbStatusException {
        String n = smbName == null ? "" : smbName;
        if (n.isEmpty()) {
            return root;
        }
        if (n.charAt(0) == '\\') {
            // [MS-SMB2] 3.3.5.9: a name that starts with a separator
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "name '" + n + "' starts with a backslash");
        }
        String[] parts = n.split("\\\\", -1);
        for (String part : parts) {
            checkComponent(n, part);
        }
        Path parent = root;
        for (int i = 0; i < parts.length - 1; i++) {
            parent = parent.resolve(parts[i]);
        }
        Path parentReal;
        try {
            parentReal = parent.toRealPath();
        } catch (NoSuchFileException e) {
            throw new SmbStatusException(NtStatus.OBJECT_PATH_NOT_FOUND, "'" + n + "': a directory on the way does not exist");
        } catch (IOException e) {
            throw IoStatus.of(e, "resolve '" + n + "'");
        }
        if (!parentReal.startsWith(root)) {
            LOG.info("'{}' refused: a symbolic link on the way leads out of share {} (to {})", n, name, parentReal);
            throw new SmbStatusException(NtStatus.ACCESS_DENIED, "'" + n + "': a symbolic link on the way leads out of the share");
        }
        if (!Files.isDirectory(parentReal)) {
            throw new SmbStatusException(NtStatus.OBJECT_PATH_NOT_FOUND, "'" + n + "': a component on the way is not a directory");
        }
        Path candidate = parentReal.resolve(parts[parts.length - 1]);
        if (followLast && Files.isSymbolicLink(candidate)) {
            Path real;
            try {
                real = candidate.toRealPath();
            } catch (NoSuchFileException e) {
                LOG.info("'{}' refused: a symbolic link to nothing in share {}", n, name);
                throw new SmbStatusException(NtStatus.ACCESS_DENIED, "'" + n + "' is a symbolic link to nothing");
            } catch (IOException e) {
                throw IoStatus.of(e, "resolve '" + n + "'");
            }
            if (!real.startsWith(root)) {
                LOG.info("'{}' refused: a symbolic link leading out of share {} (to {})", n, name, real);
                throw new SmbStatusException(NtStatus.ACCESS_DENIED, "'" + n + "' is a symbolic link leading out of the share");
            }
        }
        return candidate;
    }

    private static void checkComponent(String whole, String part) throws SmbStatusException {
        if (part.isEmpty() || ".".equals(part) || "..".equals(part)) {
            throw new SmbStatusException(NtStatus.OBJECT_NAME_INVALID,
                    "name '" + whole + "': component '" + part + "' is not a file name");
        }
        if (part.length() > MAX_COMPONENT) {
            throw new SmbStatusException(NtStatus.OBJECT_NAME_INVALID, "name '" + whole + "': a component longer than 255");
        }
        for (int i = 0; i < part.length(); i++) {
            char c = part.charAt(i);
            if (c < 0x20 || INVALID_CHARS.indexOf(c) >= 0) {
                throw new SmbStatusException(NtStatus.OBJECT_NAME_INVALID, String.format(
                        "name '%s': character U+%04X is not allowed%s", whole, (int) c, c == ':' ? " (no streams)" : ""));
            }
        }
    }

    /** The share-relative name of a node (backslashes; empty for the root). */
    String relative(Node node) {
        Path p;
        synchronized (lock) {
            p = node.path;
        }
        return relative(p);
    }

    private String relative(Path p) {
        return root.relativize(p).toString().replace('/', '\\');
    }

    // ---------------------------------------------------------------- CREATE

    /** CREATE: opens or creates as the request's disposition and options say. */
    public OpenFile create(CreateRequest request) throws SmbStatusException {
        int disposition = request.createDisposition();
        int options = request.createOptions();
        String n = request.path();
        if (disposition < FILE_SUPERSEDE || disposition > FILE_OVERWRITE_IF) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "CreateDisposition " + disposition + " unknown");
        }
        boolean wantDir = (options & FILE_DIRECTORY_FILE) != 0;
        boolean wantFile = (options & FILE_NON_DIRECTORY_FILE) != 0;
        if (wantDir && wantFile) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "FILE_DIRECTORY_FILE and FILE_NON_DIRECTORY_FILE together");
        }
        if (wantDir && disposition != FILE_CREATE && disposition != FILE_OPEN && disposition != FILE_OPEN_IF) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "FILE_DIRECTORY_FILE with CreateDisposition " + disposition);
        }
        int access = request.desiredAccess();
        if ((access & ACCESS_SYSTEM_SECURITY) != 0) {
            throw new SmbStatusException(NtStatus.PRIVILEGE_NOT_HELD, "ACCESS_SYSTEM_SECURITY asked for '" + n + "'");
        }
        int granted = mapGeneric(access) & FILE_ALL_ACCESS;
        boolean maximumAllowed = (access & MAXIMUM_ALLOWED) != 0;
        if (maximumAllowed) {
            granted |= readOnly ? FILE_ALL_ACCESS & ~WRITE_RIGHTS : FILE_ALL_ACCESS;
        }
        boolean deleteOnClose = (options & FILE_DELETE_ON_CLOSE) != 0;
        if (readOnly && (granted & WRITE_RIGHTS) != 0) {
            throw new SmbStatusException(NtStatus.ACCESS_DENIED, String.format(
                    "'%s': access 0x%08X on a read-only share", n, access));
        }
        if (deleteOnClose && (granted & DELETE) == 0) {
            throw new SmbStatusException(NtStatus.ACCESS_DENIED, "'" + n + "': FILE_DELETE_ON_CLOSE without DELETE access");
        }
        boolean reparse = (options & FILE_OPEN_REPARSE_POINT) != 0;
        Path path = resolve(n, !reparse);
        synchronized (lock) {
            Node existing = nodes.get(path);
            if (existing != null && existing.deletePending) {
                throw new SmbStatusException(NtStatus.DELETE_PENDING, "'" + n + "' is to be deleted");
            }
            for (Path up = path.getParent(); up != null && up.startsWith(root) && !up.equals(root); up = up.getParent()) {
                Node above = nodes.get(up);
                if (above != null && above.deletePending) {
                    throw new SmbStatusException(NtStatus.DELETE_PENDING, "'" + n + "': directory '" + relative(up)
                            + "' is to be deleted");
                }
            }
            // FILE_OPEN_REPARSE_POINT on a symbolic link: the link itself (to delete or rename it), no data
            boolean asLink = reparse && Files.isSymbolicLink(path);
            boolean exists = asLink || Files.exists(path);
            int action;
            boolean isDir;
            if (exists) {
                isDir = !asLink && Files.isDirectory(path);
                if (disposition == FILE_CREATE) {
                    throw new SmbStatusException(NtStatus.OBJECT_NAME_COLLISION, "'" + n + "' exists (FILE_CREATE)");
                }
                if (wantDir && !isDir) {
                    throw new SmbStatusException(NtStatus.NOT_A_DIRECTORY, "'" + n + "' is a file (FILE_DIRECTORY_FILE)");
                }
                if (wantFile && isDir) {
                    throw new SmbStatusException(NtStatus.FILE_IS_A_DIRECTORY, "'" + n + "' is a directory (FILE_NON_DIRECTORY_FILE)");
                }
                boolean overwrite = disposition == FILE_SUPERSEDE || disposition == FILE_OVERWRITE
                        || disposition == FILE_OVERWRITE_IF;
                if (overwrite && isDir) {
                    throw new SmbStatusException(NtStatus.FILE_IS_A_DIRECTORY, "'" + n + "' is a directory: it cannot be overwritten");
                }
                if (overwrite && asLink) {
                    throw new SmbStatusException(NtStatus.ACCESS_DENIED, "'" + n + "': a symbolic link opened as itself cannot be overwritten");
                }
                if (overwrite && readOnly) {
                    throw new SmbStatusException(NtStatus.ACCESS_DENIED, "'" + n + "': overwrite on a read-only share");
                }
                if (deleteOnClose && path.equals(root)) {
                    throw new SmbStatusException(NtStatus.ACCESS_DENIED, "the share's root cannot be deleted");
                }
                if (deleteOnClose && isDir && !emptyDirectory(path)) {
                    throw new SmbStatusException(NtStatus.DIRECTORY_NOT_EMPTY, "'" + n + "': FILE_DELETE_ON_CLOSE on a directory that is not empty");
                }
                action = disposition == FILE_SUPERSEDE ? FILE_SUPERSEDED : overwrite ? FILE_OVERWRITTEN : FILE_OPENED;
            } else {
                if (disposition == FILE_OPEN || disposition == FILE_OVERWRITE) {
                    throw new SmbStatusException(NtStatus.OBJECT_NAME_NOT_FOUND, "'" + n + "' does not exist");
                }
                if (readOnly) {
                    throw new SmbStatusException(NtStatus.ACCESS_DENIED, "'" + n + "': no creating on a read-only share");
                }
                isDir = wantDir;
                try {
                    if (isDir) {
                        Files.createDirectory(path);
                    } else {
                        Files.createFile(path);
                    }
                } catch (IOException e) {
                    throw IoStatus.of(e, "create '" + n + "'");
                }
                action = FILE_CREATED;
                LOG.debug("created {} '{}'", isDir ? "directory" : "file", n);
            }
            if (maximumAllowed && !isDir && !asLink) {
                // MAXIMUM_ALLOWED: only what the file's permissions allow this process
                if (!Files.isWritable(path)) {
                    granted &= ~(FILE_WRITE_DATA | FILE_APPEND_DATA);
                }
                if (!Files.isReadable(path)) {
                    granted &= ~(FILE_READ_DATA | FILE_EXECUTE);
                }
            }
            FileChannel channel = null;
            try {
                if (!isDir && !asLink) {
                    channel = openChannel(path, granted, n);
                }
                if (action == FILE_SUPERSEDED || action == FILE_OVERWRITTEN) {
                    truncate(path, (granted & (FILE_WRITE_DATA | FILE_APPEND_DATA)) != 0 ? channel : null, n);
                }
            } catch (SmbStatusException e) {
                closeQuietly(channel);
                if (action == FILE_CREATED) {
                    deleteQuietly(path);
                }
                throw e;
            }
            if (action == FILE_CREATED && (request.fileAttributes() & ATTR_READONLY) != 0 && !isDir) {
                try {
                    FileStat.setReadOnly(path, true);
                } catch (IOException e) {
                    LOG.debug("'{}': FILE_ATTRIBUTE_READONLY not set: {}", n, e.toString());
                }
            }
            Node node = existing != null ? existing : new Node(path);
            node.opens++;
            nodes.put(path, node);
            return new LocalOpen(this, node, action, granted, isDir, asLink, channel, options & MODE_OPTIONS, deleteOnClose);
        }
    }

    /** FILE_SUPERSEDE and FILE_OVERWRITE(_IF) of an existing file: its data goes, only after the open succeeded. */
    private static void truncate(Path path, FileChannel writableChannel, String n) throws SmbStatusException {
        try {
            if (writableChannel != null) {
                writableChannel.truncate(0);
            } else {
                try (FileChannel t = FileChannel.open(path, StandardOpenOption.WRITE)) {
                    t.truncate(0);
                }
            }
        } catch (IOException e) {
            throw IoStatus.of(e, "overwrite '" + n + "'");
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.debug("close after a failed CREATE: {}", e.toString());
            }
        }
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.warn("'{}' created by a CREATE that then failed, not removed: {}", path, e.toString());
        }
    }

    private static FileChannel openChannel(Path path, int granted, String n) throws SmbStatusException {
        boolean read = (granted & (FILE_READ_DATA | FILE_EXECUTE)) != 0;
        boolean write = (granted & (FILE_WRITE_DATA | FILE_APPEND_DATA)) != 0;
        Set<OpenOption> opts = new HashSet<>();
        if (write) {
            opts.add(StandardOpenOption.WRITE);
        }
        if (read || !write) {
            opts.add(StandardOpenOption.READ);
        }
        try {
            return FileChannel.open(path, opts);
        } catch (IOException e) {
            if (!read && !write) {
                // attributes only: no data access needed, none given
                return null;
            }
            throw IoStatus.of(e, "open '" + n + "'");
        }
    }

    private static boolean emptyDirectory(Path dir) throws SmbStatusException {
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            return !s.iterator().hasNext();
        } catch (IOException e) {
            throw IoStatus.of(e, "list " + dir.getFileName());
        }
    }

    // ---------------------------------------------------------------- QUERY_INFO

    FileStat stat(LocalOpen open) throws SmbStatusException {
        Path p;
        synchronized (lock) {
            p = open.node.path;
        }
        try {
            return open.asLink ? FileStat.of(p, LinkOption.NOFOLLOW_LINKS) : FileStat.of(p);
        } catch (IOException e) {
            throw IoStatus.of(e, "attributes of '" + relative(p) + "'");
        }
    }

    /**
     * QUERY_INFO: writes the information of {@code infoType} (SMB2_0_INFO_FILE 1,
     * SMB2_0_INFO_FILESYSTEM 2, SMB2_0_INFO_SECURITY 3) and {@code infoClass} at {@code out}'s
     * position (little-endian) and advances it; {@code out}'s remaining is the client's
     * OutputBufferLength. Too small for a fixed-size class: INFO_LENGTH_MISMATCH; a variable one cut:
     * BUFFER_OVERFLOW with what fits written (the exception then carries the status, and
     * {@code out} holds the partial result).
     */
    public void queryInfo(OpenFile file, int infoType, int infoClass, int additionalInformation, ByteBuffer out)
            throws SmbStatusException {
        LocalOpen open = own(file);
        switch (infoType) {
            case INFO_FILE -> queryFile(open, infoClass, out);
            case INFO_FILESYSTEM -> queryFileSystem(infoClass, out);
            case INFO_SECURITY -> querySecurity(open, additionalInformation, out);
            default -> throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "InfoType " + infoType + " unknown");
        }
    }

    private void queryFile(LocalOpen open, int infoClass, ByteBuffer out) throws SmbStatusException {
        switch (infoClass) {
            case FileBasicInformation, FileAllInformation, FileNetworkOpenInformation, FileAttributeTagInformation -> {
                if (!open.granted(FILE_READ_ATTRIBUTES)) {
                    throw new SmbStatusException(NtStatus.ACCESS_DENIED, "class " + infoClass + " needs FILE_READ_ATTRIBUTES on " + open);
                }
            }
            default -> {
            }
        }
        switch (infoClass) {
            case FileBasicInformation -> emit(out, InfoClasses.basic(stat(open)), 40);
            case FileStandardInformation -> emit(out, InfoClasses.standard(stat(open), deletePending(open)), 24);
            case FileInternalInformation -> emit(out, le(8).putLong(stat(open).indexNumber()).array(), 8);
            case FileEaInformation -> emit(out, le(4).putInt(0).array(), 4);
            case FileAccessInformation -> emit(out, le(4).putInt(open.grantedAccess()).array(), 4);
            case FilePositionInformation -> emit(out, le(8).putLong(0).array(), 8);
            case FileModeInformation -> emit(out, le(4).putInt(open.mode | (open.deleteOnClose ? FILE_DELETE_ON_CLOSE : 0)).array(), 4);
            case FileAlignmentInformation -> emit(out, le(4).putInt(0).array(), 4);
            case FileAllInformation -> emit(out, InfoClasses.all(stat(open), deletePending(open), open.grantedAccess(),
                    open.mode | (open.deleteOnClose ? FILE_DELETE_ON_CLOSE : 0), "\\" + open.path()), InfoClasses.ALL_FIXED);
            case FileNameInformation -> emit(out, InfoClasses.name("\\" + open.path()), 4);
            case FileNormalizedNameInformation -> emit(out, InfoClasses.name(open.path()), 4);
            case FileAlternateNameInformation -> throw new SmbStatusException(NtStatus.NOT_SUPPORTED,
                    "no 8.3 short names on this share");
            case FileStreamInformation -> {
                FileStat st = stat(open);
                emit(out, st.directory() ? new byte[0] : InfoClasses.dataStream(st), 0);
            }
            case FileCompressionInformation -> emit(out, InfoClasses.compression(stat(open)), 16);
            case FileNetworkOpenInformation -> emit(out, InfoClasses.networkOpen(stat(open)), 56);
            case FileAttributeTagInformation -> emit(out, le(8).putInt(stat(open).attributes()).putInt(0).array(), 8);
            default -> throw new SmbStatusException(NtStatus.INVALID_INFO_CLASS, "file information class " + infoClass + " unknown");
        }
    }

    private boolean deletePending(LocalOpen open) {
        synchronized (lock) {
            return open.node.deletePending;
        }
    }

    private void queryFileSystem(int infoClass, ByteBuffer out) throws SmbStatusException {
        switch (infoClass) {
            case FileFsVolumeInformation -> {
                long created;
                try {
                    created = FileStat.of(root).creationTime();
                } catch (IOException e) {
                    throw IoStatus.of(e, "attributes of the share's root");
                }
                emit(out, InfoClasses.volume(created, root.toString().hashCode(), name), 18);
            }
            case FileFsSizeInformation -> {
                long[] s = space();
                emit(out, le(24).putLong(s[0]).putLong(s[1]).putInt((int) s[3] / 512).putInt(512).array(), 24);
            }
            case FileFsFullSizeInformation -> {
                long[] s = space();
                emit(out, le(32).putLong(s[0]).putLong(s[1]).putLong(s[2]).putInt((int) s[3] / 512).putInt(512).array(), 32);
            }
            case FileFsDeviceInformation -> emit(out, le(8).putInt(0x07 /* FILE_DEVICE_DISK */)
                    .putInt(0x20 /* FILE_DEVICE_IS_MOUNTED */ | (readOnly ? 0x02 /* FILE_READ_ONLY_DEVICE */ : 0)).array(), 8);
            case FileFsAttributeInformation -> emit(out, InfoClasses.fsAttribute(readOnly), 12);
            case FileFsSectorSizeInformation -> emit(out, le(28).putInt(512).putInt(512).putInt(512).putInt(512)
                    .putInt(0x3 /* SSINFO_FLAGS_ALIGNED_DEVICE | SSINFO_FLAGS_PARTITION_ALIGNED_ON_DEVICE */)
                    .putInt(0).putInt(0).array(), 28);
            case FileFsObjectIdInformation -> throw new SmbStatusException(NtStatus.NOT_SUPPORTED, "no object ids on this share");
            default -> throw new SmbStatusException(NtStatus.INVALID_INFO_CLASS, "file system information class " + infoClass + " unknown");
        }
    }

    /** Total, caller-available and actually-free allocation units, and the unit's size. */
    private long[] space() throws SmbStatusException {
        try {
            FileStore store = Files.getFileStore(root);
            long unit;
            try {
                unit = store.getBlockSize();
            } catch (UnsupportedOperationException e) {
                unit = FileStat.ALLOCATION_UNIT;
            }
            if (unit < 512 || unit > 1 << 20) {
                unit = FileStat.ALLOCATION_UNIT;
            }
            return new long[] {store.getTotalSpace() / unit, store.getUsableSpace() / unit,
                    store.getUnallocatedSpace() / unit, unit};
        } catch (IOException e) {
            throw IoStatus.of(e, "space of the share's file system");
        }
    }

    private void querySecurity(LocalOpen open, int additionalInformation, ByteBuffer out) throws SmbStatusException {
        if (!open.granted(READ_CONTROL)) {
            throw new SmbStatusException(NtStatus.ACCESS_DENIED, "security query needs READ_CONTROL on " + open);
        }
        Path p;
        synchronized (lock) {
            p = open.node.path;
        }
        int uid = -1;
        int gid = -1;
        try {
            uid = (Integer) Files.getAttribute(p, "unix:uid");
            gid = (Integer) Files.getAttribute(p, "unix:gid");
        } catch (UnsupportedOperationException | IllegalArgumentException | IOException e) {
            // the SIDs fall back to Everyone
        }
        byte[] sd = InfoClasses.securityDescriptor(additionalInformation, uid, gid,
                readOnly ? FILE_GENERIC_READ | FILE_GENERIC_EXECUTE : FILE_ALL_ACCESS);
        if (out.remaining() < sd.length) {
            // [MS-SMB2] 3.3.5.20.3
            throw new SmbStatusException(NtStatus.BUFFER_TOO_SMALL, "security descriptor of " + sd.length
                    + " bytes, OutputBufferLength " + out.remaining());
        }
        out.put(sd);
    }

    /** Writes {@code data}; when it does not fit: INFO_LENGTH_MISMATCH below {@code fixed} bytes, else BUFFER_OVERFLOW with what fits. */
    private static void emit(ByteBuffer out, byte[] data, int fixed) throws SmbStatusException {
        if (out.remaining() >= data.length) {
            out.put(data);
            return;
        }
        if (out.remaining() < fixed || fixed == data.length) {
            throw new SmbStatusException(NtStatus.INFO_LENGTH_MISMATCH, "OutputBufferLength " + out.remaining()
                    + " below the " + fixed + " bytes of the class");
        }
        int n = out.remaining();
        out.put(data, 0, n);
        throw new SmbStatusException(NtStatus.BUFFER_OVERFLOW, data.length + " bytes, " + n + " written");
    }

    static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    // ---------------------------------------------------------------- SET_INFO

    /** SET_INFO: applies {@code in} (position to limit, little-endian) of the class to the open. */
    public void setInfo(OpenFile file, int infoType, int infoClass, ByteBuffer in) throws SmbStatusException {
        LocalOpen open = own(file);
        if (readOnly) {
            throw new SmbStatusException(NtStatus.ACCESS_DENIED, "SET_INFO class " + infoClass + " on a read-only share");
        }
        ByteBuffer b = in.slice().order(ByteOrder.LITTLE_ENDIAN);
        if (infoType != INFO_FILE) {
            throw new SmbStatusException(NtStatus.NOT_SUPPORTED, "SET_INFO InfoType " + infoType + " is not supported");
        }
        switch (infoClass) {
            case FileBasicInformation -> setBasic(open, need(b, 40));
            case FileRenameInformation -> rename(open, need(b, 20));
            case FileDispositionInformation -> {
                need(b, 1);
                setDeletePending(open, b.get(0) != 0);
            }
            case FileDispositionInformationEx -> setDispositionEx(open, need(b, 4).getInt(0));
            case FileEndOfFileInformation -> setEndOfFile(open, need(b, 8).getLong(0), false);
            case FileAllocationInformation -> setEndOfFile(open, need(b, 8).getLong(0), true);
            case FilePositionInformation, FileModeInformation -> need(b, infoClass == FilePositionInformation ? 8 : 4);
            case 11 /* FileLinkInformation */, 15 /* FileFullEaInformation */, 39 /* FileValidDataLengthInformation */,
                    40 /* FileShortNameInformation */ -> throw new SmbStatusException(NtStatus.NOT_SUPPORTED,
                            "SET_INFO class " + infoClass + " is not supported");
            default -> throw new SmbStatusException(NtStatus.INVALID_INFO_CLASS, "SET_INFO class " + infoClass + " unknown");
        }
    }

    private static ByteBuffer need(ByteBuffer b, int size) throws SmbStatusException {
        if (b.remaining() < size) {
            throw new SmbStatusException(NtStatus.INFO_LENGTH_MISMATCH, "SET_INFO buffer of " + b.remaining()
                    + " bytes, the class needs " + size);
        }
        return b;
    }

    private static void needAccess(LocalOpen open, int rights, String what) throws SmbStatusException {
        if (!open.granted(rights)) {
            throw new SmbStatusException(NtStatus.ACCESS_DENIED, what + " not granted on " + open);
        }
    }

    private void setBasic(LocalOpen open, ByteBuffer b) throws SmbStatusException {
        needAccess(open, FILE_WRITE_ATTRIBUTES, "FILE_WRITE_ATTRIBUTES");
        FileTime creation = time(b.getLong(0));
        FileTime access = time(b.getLong(8));
        FileTime write = time(b.getLong(16));
        // ChangeTime (24) cannot be set on Linux: the inode's ctime follows every change
        int attributes = b.getInt(32);
        Path p;
        synchronized (lock) {
            p = open.node.path;
        }
        if (attributes != 0 && !open.isDirectory() && (attributes & ATTR_DIRECTORY) != 0) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "FILE_ATTRIBUTE_DIRECTORY set on file " + open);
        }
        try {
            if (creation != null || access != null || write != null) {
                LinkOption[] how = open.asLink ? new LinkOption[] {LinkOption.NOFOLLOW_LINKS} : new LinkOption[0];
                Files.getFileAttributeView(p, BasicFileAttributeView.class, how).setTimes(write, access, creation);
            }
            if (attributes != 0 && !open.isDirectory() && !open.asLink) {
                FileStat.setReadOnly(p, (attributes & ATTR_READONLY) != 0);
            }
        } catch (IOException e) {
            throw IoStatus.of(e, "set basic information of " + open);
        }
    }

    /** 0 leaves the time; -1 and -2 (stop and resume automatic updates) leave it too. */
    private static FileTime time(long filetime) {
        return filetime == 0 || filetime == -1 || filetime == -2 ? null : Fscc.fileTime(filetime);
    }

    private void rename(LocalOpen open, ByteBuffer b) throws SmbStatusException {
        needAccess(open, DELETE, "DELETE (for a rename)");
        boolean replace = b.get(0) != 0;
        long rootDirectory = b.getLong(8);
        int length = b.getInt(16);
        if (rootDirectory != 0) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "rename with RootDirectory " + rootDirectory);
        }
        if (length < 0 || length > b.remaining() - 20 || (length & 1) != 0) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "rename FileNameLength " + length + " with "
                    + (b.remaining() - 20) + " bytes of name");
        }
        byte[] raw = new byte[length];
        b.get(20, raw);
        String target = new String(raw, StandardCharsets.UTF_16LE);
        while (target.startsWith("\\")) {
            target = target.substring(1);
        }
        if (target.isEmpty()) {
            throw new SmbStatusException(NtStatus.OBJECT_NAME_INVALID, "rename to an empty name");
        }
        Path to = resolve(target, false);
        synchronized (lock) {
            Path from = open.node.path;
            if (from.equals(root)) {
                throw new SmbStatusException(NtStatus.ACCESS_DENIED, "the share's root cannot be renamed");
            }
            if (open.node.deletePending || open.node.unlinked) {
                throw new SmbStatusException(NtStatus.DELETE_PENDING, open + " is to be deleted");
            }
            if (to.startsWith(from) && !to.equals(from)) {
                throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "rename of " + open + " into itself ('" + target + "')");
            }
            if (to.equals(from)) {
                return;
            }
            if (Files.exists(to, LinkOption.NOFOLLOW_LINKS)) {
                if (!replace) {
                    throw new SmbStatusException(NtStatus.OBJECT_NAME_COLLISION, "rename of " + open + ": '" + target + "' exists");
                }
                if (Files.isDirectory(to, LinkOption.NOFOLLOW_LINKS)) {
                    throw new SmbStatusException(NtStatus.ACCESS_DENIED, "rename of " + open + ": '" + target
                            + "' is a directory and cannot be replaced");
                }
                if (nodes.containsKey(to)) {
                    throw new SmbStatusException(NtStatus.ACCESS_DENIED, "rename of " + open + ": '" + target
                            + "' is open and cannot be replaced");
                }
            }
            try {
                Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                throw new SmbStatusException(NtStatus.NOT_SUPPORTED, "rename of " + open + " to '" + target
                        + "' crosses file systems");
            } catch (IOException e) {
                throw IoStatus.of(e, "rename " + open + " to '" + target + "'");
            }
            List<Node> moved = new ArrayList<>();
            for (var it = nodes.entrySet().iterator(); it.hasNext();) {
                Node node = it.next().getValue();
                if (node.path.startsWith(from)) {
                    it.remove();
                    node.path = to.resolve(from.relativize(node.path));
                    moved.add(node);
                }
            }
            for (Node node : moved) {
                nodes.put(node.path, node);
            }
            LOG.debug("renamed '{}' to '{}' ({} open names moved)", relative(from), target, moved.size());
        }
    }

    private void setDeletePending(LocalOpen open, boolean pending) throws SmbStatusException {
        needAccess(open, DELETE, "DELETE");
        synchronized (lock) {
            Path p = open.node.path;
            if (pending) {
                if (p.equals(root)) {
                    throw new SmbStatusException(NtStatus.ACCESS_DENIED, "the share's root cannot be deleted");
                }
                if (open.isDirectory() && !emptyDirectory(p)) {
                    throw new SmbStatusException(NtStatus.DIRECTORY_NOT_EMPTY, open + " is not empty");
                }
            }
            open.node.deletePending = pending;
        }
    }

    private void setDispositionEx(LocalOpen open, int flags) throws SmbStatusException {
        final int delete = 0x1;
        final int posix = 0x2;
        final int onClose = 0x8;
        boolean del = (flags & delete) != 0;
        if ((flags & onClose) != 0) {
            needAccess(open, DELETE, "DELETE");
            open.deleteOnClose = del;
            return;
        }
        setDeletePending(open, del);
        if (del && (flags & posix) != 0) {
            synchronized (lock) {
                Node node = open.node;
                try {
                    Files.delete(node.path);
                } catch (IOException e) {
                    node.deletePending = false;
                    throw IoStatus.of(e, "delete " + open);
                }
                node.unlinked = true;
                node.deletePending = false;
                nodes.remove(node.path, node);
            }
        }
    }

    private void setEndOfFile(LocalOpen open, long size, boolean allocation) throws SmbStatusException {
        needAccess(open, FILE_WRITE_DATA, "FILE_WRITE_DATA");
        if (open.isDirectory() || open.channel() == null) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "size of directory " + open);
        }
        if (size < 0) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "size " + size + " of " + open);
        }
        FileChannel ch = open.channel();
        try {
            long now = ch.size();
            if (size < now) {
                ch.truncate(size);
            } else if (size > now && !allocation) {
                // extend: the new bytes read as zeros (a hole where the file system has them)
                ch.write(ByteBuffer.allocate(1), size - 1);
            }
        } catch (IOException e) {
            throw IoStatus.of(e, (allocation ? "allocation size of " : "end of file of ") + open);
        }
    }

    // ---------------------------------------------------------------- QUERY_DIRECTORY

    /**
     * QUERY_DIRECTORY ([MS-SMB2] 3.3.5.18): writes as many entries of {@code infoClass} matching
     * {@code pattern} as fit in {@code out} (each 8-byte aligned, NextEntryOffset chained), going on
     * from where the previous call on this open stopped unless {@code flags} restart
     * (SMB2_RESTART_SCANS 0x01, SMB2_REOPEN 0x10) or the pattern changed. No entry left:
     * NO_MORE_FILES (NO_SUCH_FILE when the first call matches nothing).
     */
    public void queryDirectory(OpenFile directory, int infoClass, int flags, String pattern, ByteBuffer out)
            throws SmbStatusException {
        LocalOpen open = own(directory);
        if (!open.isDirectory()) {
            throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "QUERY_DIRECTORY on " + open);
        }
        needAccess(open, FILE_LIST_DIRECTORY, "FILE_LIST_DIRECTORY");
        int fixed = DirectoryEntries.fixedSize(infoClass);
        if (out.remaining() < fixed) {
            throw new SmbStatusException(NtStatus.INFO_LENGTH_MISMATCH, "OutputBufferLength " + out.remaining()
                    + " below the " + fixed + " bytes of class " + infoClass);
        }
        Wildcard wildcard = new Wildcard(pattern);
        if (wildcard.pattern().indexOf('\\') >= 0) {
            throw new SmbStatusException(NtStatus.OBJECT_NAME_INVALID, "search pattern '" + pattern + "' has a backslash");
        }
        Path dir;
        synchronized (lock) {
            dir = open.node.path;
        }
        boolean restart = (flags & 0x11) != 0 || open.entries == null
                || !open.searchPattern.pattern().equals(wildcard.pattern());
        if (restart) {
            open.searchPattern = wildcard;
            open.entries = list(dir, wildcard);
            open.nextEntry = 0;
            open.returnedAny = false;
        }
        boolean single = (flags & 0x02) != 0;
        int start = out.position();
        int previous = -1;
        int count = 0;
        while (open.nextEntry < open.entries.size()) {
            String entryName = open.entries.get(open.nextEntry);
            FileStat st = entryStat(dir, entryName);
            if (st == null) {
                open.nextEntry++;
                continue;
            }
            byte[] entry = DirectoryEntries.entry(infoClass, entryName, st);
            int at = previous < 0 ? start : start + align8(out.position() - start);
            if (at + entry.length > out.limit()) {
                break;
            }
            if (previous >= 0) {
                putIntLe(out, previous, at - previous);
                while (out.position() < at) {
                    out.put((byte) 0);
                }
            }
            out.put(entry);
            previous = at;
            count++;
            open.nextEntry++;
            if (single) {
                break;
            }
        }
        if (count == 0) {
            if (open.nextEntry < open.entries.size()) {
                throw new SmbStatusException(NtStatus.BUFFER_TOO_SMALL, "the entry '" + open.entries.get(open.nextEntry)
                        + "' does not fit in OutputBufferLength " + out.remaining());
            }
            boolean first = !open.returnedAny;
            open.returnedAny = true;
            throw new SmbStatusException(first ? NtStatus.NO_SUCH_FILE : NtStatus.NO_MORE_FILES,
                    (first ? "nothing matches '" : "no more entries match '") + wildcard.pattern() + "' in " + open);
        }
        open.returnedAny = true;
    }

    /** A 32-bit little-endian value at {@code index}, whatever {@code out}'s byte order. */
    private static void putIntLe(ByteBuffer out, int index, int value) {
        for (int i = 0; i < 4; i++) {
            out.put(index + i, (byte) (value >>> (8 * i)));
        }
    }

    private static int align8(int n) {
        return (n + 7) & ~7;
    }

    /** The names of an enumeration: "." and ".." first, then the directory's names in order. */
    private List<String> list(Path dir, Wildcard wildcard) throws SmbStatusException {
        List<String> names = new ArrayList<>();
        for (String dot : new String[] {".", ".."}) {
            if (wildcard.matches(dot)) {
                names.add(dot);
            }
        }
        if (wildcard.literal()) {
            if (!".".equals(wildcard.pattern()) && !"..".equals(wildcard.pattern())
                    && Files.exists(dir.resolve(wildcard.pattern()), LinkOption.NOFOLLOW_LINKS)) {
                names.add(wildcard.pattern());
            }
            return names;
        }
        List<String> children = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                String child = p.getFileName().toString();
                if (child.indexOf('\\') < 0 && wildcard.matches(child)) {
                    children.add(child);
                }
            }
        } catch (IOException e) {
            throw IoStatus.of(e, "list '" + relative(dir) + "'");
        }
        children.sort(null);
        names.addAll(children);
        return names;
    }

    /** The attributes an entry shows: a link inside the share shows its target, one leading out itself. */
    private FileStat entryStat(Path dir, String entryName) {
        try {
            if (".".equals(entryName)) {
                return FileStat.of(dir);
            }
            if ("..".equals(entryName)) {
                return FileStat.of(dir.equals(root) ? root : dir.getParent());
            }
            Path p = dir.resolve(entryName);
            if (Files.isSymbolicLink(p)) {
                try {
                    Path real = p.toRealPath();
                    if (real.startsWith(root)) {
                        return FileStat.of(real);
                    }
                } catch (IOException e) {
                    // a link to nothing shows itself
                }
                return FileStat.of(p, LinkOption.NOFOLLOW_LINKS);
            }
            return FileStat.of(p, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            LOG.debug("entry '{}' of '{}' left out: {}", entryName, relative(dir), e.toString());
            return null;
        }
    }

    // ---------------------------------------------------------------- FLUSH, CLOSE

    /** FLUSH: the file's data and metadata to stable storage. */
    public void flush(OpenFile file) throws SmbStatusException {
        LocalOpen open = own(file);
        if (open.isDirectory() || open.channel() == null) {
            return;
        }
        // [MS-SMB2] 3.3.5.11
        needAccess(open, FILE_WRITE_DATA | FILE_APPEND_DATA, "FILE_WRITE_DATA or FILE_APPEND_DATA (for a flush)");
        try {
            open.channel().force(true);
        } catch (IOException e) {
            throw IoStatus.of(e, "flush " + open);
        }
    }

    /**
     * CLOSE: closes the open (and deletes the file when delete-on-close was set by CREATE or
     * SET_INFO FileDispositionInformation); returns the attributes just before the close when
     * {@code postQuery}, else {@code null}.
     */
    public FileInfo close(OpenFile file, boolean postQuery) throws SmbStatusException {
        LocalOpen open = own(file);
        FileInfo info = null;
        if (postQuery) {
            try {
                info = stat(open).info();
            } catch (SmbStatusException e) {
                LOG.debug("close of {}: no attributes ({})", open, e.toString());
            }
        }
        synchronized (lock) {
            if (open.closed) {
                throw new SmbStatusException(NtStatus.FILE_CLOSED, open + " is closed already");
            }
            open.closed = true;
            if (open.channel() != null) {
                try {
                    open.channel().close();
                } catch (IOException e) {
                    LOG.warn("close of {}: {}", open, e.toString());
                }
            }
            Node node = open.node;
            if (open.deleteOnClose) {
                node.deletePending = true;
            }
            node.opens--;
            if (node.opens == 0) {
                nodes.remove(node.path, node);
                if (node.deletePending && !node.unlinked) {
                    try {
                        Files.delete(node.path);
                        node.unlinked = true;
                        LOG.debug("deleted '{}' at its last close", relative(node.path));
                    } catch (IOException e) {
                        LOG.warn("'{}' not deleted at its last close: {}", relative(node.path), IoStatus.of(e, "delete"));
                    }
                }
            }
        }
        return info;
    }

    private LocalOpen own(OpenFile file) throws SmbStatusException {
        if (file instanceof LocalOpen open && open.share == this) {
            if (open.closed) {
                throw new SmbStatusException(NtStatus.FILE_CLOSED, open + " is closed");
            }
            return open;
        }
        throw new SmbStatusException(NtStatus.INVALID_HANDLE, "not an open of share " + name);
    }
}
