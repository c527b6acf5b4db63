package smbdirect.example.fileserver.internal.share;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;
import java.util.Set;

/**
 * One file's attributes as the information classes report them: FILETIMEs, sizes, the inode as
 * IndexNumber/FileId, FILE_ATTRIBUTE_*. On Linux (the "unix" attribute view) ChangeTime is the
 * inode's ctime and the IndexNumber its st_ino; elsewhere ChangeTime is the last write and the
 * IndexNumber a hash of the file key. READONLY means the owner may not write; a file is ARCHIVE,
 * a directory DIRECTORY. AllocationSize is the size rounded up to the allocation unit (4 KiB).
 */
record FileStat(boolean directory, long creationTime, long lastAccessTime, long lastWriteTime, long changeTime,
        long endOfFile, long allocationSize, int attributes, long indexNumber, int links) {

    static final int ALLOCATION_UNIT = 4096;

    private static volatile boolean unixView = true;

    static FileStat of(Path path, LinkOption... options) throws IOException {
        BasicFileAttributes basic = Files.readAttributes(path, BasicFileAttributes.class, options);
        long change = Fscc.filetime(basic.lastModifiedTime());
        long ino = basic.fileKey() != null ? basic.fileKey().hashCode() & 0xFFFFFFFFL : 0;
        int links = 1;
        if (unixView) {
            try {
                Map<String, Object> unix = Files.readAttributes(path, "unix:ino,ctime,nlink", options);
                change = Fscc.filetime((FileTime) unix.get("ctime"));
                ino = (Long) unix.get("ino");
                links = (Integer) unix.get("nlink");
            } catch (UnsupportedOperationException | IllegalArgumentException e) {
                unixView = false;
            }
        }
        boolean dir = basic.isDirectory();
        int attributes = dir ? Fscc.ATTR_DIRECTORY : Fscc.ATTR_ARCHIVE;
        if (!basic.isSymbolicLink() && !ownerWritable(path)) {
            attributes |= Fscc.ATTR_READONLY;
        }
        long size = dir ? 0 : basic.size();
        long allocation = (size + ALLOCATION_UNIT - 1) / ALLOCATION_UNIT * ALLOCATION_UNIT;
        return new FileStat(dir, Fscc.filetime(basic.creationTime()), Fscc.filetime(basic.lastAccessTime()),
                Fscc.filetime(basic.lastModifiedTime()), change, size, allocation, attributes, ino, links);
    }

    private static boolean ownerWritable(Path path) throws IOException {
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(path);
            return perms.contains(PosixFilePermission.OWNER_WRITE);
        } catch (UnsupportedOperationException e) {
            return Files.isWritable(path);
        }
    }

    /** FILE_ATTRIBUTE_READONLY set or cleared through the owner's write permission. */
    static void setReadOnly(Path path, boolean readOnly) throws IOException {
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(path);
            boolean changed = readOnly
                    ? perms.remove(PosixFilePermission.OWNER_WRITE)
                    : perms.add(PosixFilePermission.OWNER_WRITE);
            if (changed) {
                Files.setPosixFilePermissions(path, perms);
            }
        } catch (UnsupportedOperationException e) {
            path.toFile().setWritable(!readOnly);
        }
    }

    FileInfo info() {
        return new FileInfo(creationTime, lastAccessTime, lastWriteTime, changeTime, allocationSize, endOfFile, attributes);
    }
}
