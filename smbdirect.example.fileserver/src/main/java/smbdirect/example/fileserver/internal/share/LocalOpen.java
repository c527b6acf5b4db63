package smbdirect.example.fileserver.internal.share;

import java.nio.channels.FileChannel;
import java.util.List;

import smbdirect.example.fileserver.internal.smb2.SmbStatusException;

/** An {@link OpenFile} of a {@link Share}: what CREATE granted, and a directory's enumeration state. */
final class LocalOpen implements OpenFile {

    final Share share;
    final Node node;
    private final int createAction;
    private final int grantedAccess;
    private final boolean directory;
    /** A symbolic link opened as itself (FILE_OPEN_REPARSE_POINT): no data, attributes of the link. */
    final boolean asLink;
    private final FileChannel channel;
    /** The CREATE options FileModeInformation reports. */
    final int mode;
    /** FILE_DELETE_ON_CLOSE of CREATE, or FileDispositionInformationEx with FILE_DISPOSITION_ON_CLOSE. */
    boolean deleteOnClose;
    boolean closed;

    // QUERY_DIRECTORY state ([MS-SMB2] 3.3.1.10 Open.EnumerationLocation, Open.EnumerationSearchPattern)
    Wildcard searchPattern;
    List<String> entries;
    int nextEntry;
    boolean returnedAny;

    LocalOpen(Share share, Node node, int createAction, int grantedAccess, boolean directory, boolean asLink,
            FileChannel channel,
            int mode, boolean deleteOnClose) {
        this.share = share;
        this.node = node;
        this.createAction = createAction;
        this.grantedAccess = grantedAccess;
        this.directory = directory;
        this.asLink = asLink;
        this.channel = channel;
        this.mode = mode;
        this.deleteOnClose = deleteOnClose;
    }

    @Override
    public int createAction() {
        return createAction;
    }

    @Override
    public int grantedAccess() {
        return grantedAccess;
    }

    @Override
    public boolean isDirectory() {
        return directory;
    }

    @Override
    public FileChannel channel() {
        return channel;
    }

    @Override
    public boolean canRead() {
        return !directory && channel != null && (grantedAccess & Fscc.FILE_READ_DATA) != 0;
    }

    @Override
    public boolean canWrite() {
        return !directory && channel != null && !share.readOnly()
                && (grantedAccess & (Fscc.FILE_WRITE_DATA | Fscc.FILE_APPEND_DATA)) != 0;
    }

    @Override
    public FileInfo info() throws SmbStatusException {
        return share.stat(this).info();
    }

    @Override
    public String path() {
        return share.relative(node);
    }

    boolean granted(int rights) {
        return (grantedAccess & rights) != 0;
    }

    @Override
    public String toString() {
        return (directory ? "directory " : "file ") + path();
    }
}
