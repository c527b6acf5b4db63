package smbdirect.example.fileserver.internal.share;

/**
 * The fields of an SMB2 CREATE request ([MS-SMB2] 2.2.13) that decide what is opened.
 *
 * @param path the name relative to the share, as the client sent it (backslashes, no leading
 *     backslash; empty for the share's root)
 * @param desiredAccess the access mask asked for (FILE_READ_DATA, GENERIC_READ, DELETE, ...)
 * @param fileAttributes FILE_ATTRIBUTE_* for a file or directory created
 * @param shareAccess FILE_SHARE_READ/WRITE/DELETE
 * @param createDisposition FILE_SUPERSEDE (0) .. FILE_OVERWRITE_IF (5)
 * @param createOptions FILE_DIRECTORY_FILE, FILE_NON_DIRECTORY_FILE, FILE_DELETE_ON_CLOSE, ...
 */
public record CreateRequest(String path, int desiredAccess, int fileAttributes, int shareAccess,
        int createDisposition, int createOptions) {
}
