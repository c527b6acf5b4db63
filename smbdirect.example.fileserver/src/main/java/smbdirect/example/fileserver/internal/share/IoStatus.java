package smbdirect.example.fileserver.internal.share;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

import smbdirect.example.fileserver.internal.smb2.NtStatus;
import smbdirect.example.fileserver.internal.smb2.SmbStatusException;

/**
 * The NTSTATUS of a failed file-system call ([MS-ERREF] 2.3.1 names, the values Windows file
 * systems answer with): the exception's type first, then the operating system's reason (the
 * errno text Java carries in {@link FileSystemException#getReason()} or the message). The
 * protocol layer uses it too for READ and WRITE failures of an {@link OpenFile#channel()}.
 */
public final class IoStatus {

    private IoStatus() {
    }

    /** The status for {@code e}, failing {@code what} (for the log: "create a\\b", "write"...). */
    public static SmbStatusException of(IOException e, String what) {
        return new SmbStatusException(statusOf(e), what + ": " + describe(e));
    }

    /** The NTSTATUS alone. */
    public static int statusOf(IOException e) {
        if (e instanceof NoSuchFileException) {
            return NtStatus.OBJECT_NAME_NOT_FOUND;
        }
        if (e instanceof FileAlreadyExistsException) {
            return NtStatus.OBJECT_NAME_COLLISION;
        }
        if (e instanceof DirectoryNotEmptyException) {
            return NtStatus.DIRECTORY_NOT_EMPTY;
        }
        if (e instanceof AccessDeniedException || e instanceof FileSystemLoopException) {
            return NtStatus.ACCESS_DENIED;
        }
        if (e instanceof NotDirectoryException) {
            return NtStatus.NOT_A_DIRECTORY;
        }
        if (e instanceof ClosedChannelException) {
            return NtStatus.FILE_CLOSED; // the open's channel was closed under a READ or WRITE
        }
        String reason = e instanceof FileSystemException fse && fse.getReason() != null ? fse.getReason() : e.getMessage();
        if (reason == null) {
            return NtStatus.UNSUCCESSFUL;
        }
        String r = reason.toLowerCase(java.util.Locale.ROOT);
        if (r.contains("no space left") || r.contains("disk quota") || r.contains("file too large")) {
            return NtStatus.DISK_FULL;
        }
        if (r.contains("read-only file system")) {
            return NtStatus.MEDIA_WRITE_PROTECTED;
        }
        if (r.contains("permission denied") || r.contains("operation not permitted")
                || r.contains("too many levels of symbolic links")) {
            return NtStatus.ACCESS_DENIED;
        }
        if (r.contains("is a directory")) {
            return NtStatus.FILE_IS_A_DIRECTORY;
        }
        if (r.contains("not a directory")) {
            return NtStatus.NOT_A_DIRECTORY;
        }
        if (r.contains("directory not empty")) {
            return NtStatus.DIRECTORY_NOT_EMPTY;
        }
        if (r.contains("file exists")) {
            return NtStatus.OBJECT_NAME_COLLISION;
        }
        if (r.contains("no such file")) {
            return NtStatus.OBJECT_NAME_NOT_FOUND;
        }
        if (r.contains("file name too long")) {
            return NtStatus.OBJECT_NAME_INVALID;
        }
        if (r.contains("too many open files") || r.contains("cannot allocate memory")) {
            return NtStatus.INSUFFICIENT_RESOURCES;
        }
        if (r.contains("invalid argument")) {
            return NtStatus.INVALID_PARAMETER;
        }
        if (r.contains("cross-device")) {
            return NtStatus.NOT_SUPPORTED;
        }
        return NtStatus.UNSUCCESSFUL;
    }

    private static String describe(IOException e) {
        if (e instanceof FileSystemException fse) {
            return e.getClass().getSimpleName() + (fse.getReason() != null ? " (" + fse.getReason() + ")" : "");
        }
        return e.getClass().getSimpleName() + (e.getMessage() != null ? " (" + e.getMessage() + ")" : "");
    }
}
