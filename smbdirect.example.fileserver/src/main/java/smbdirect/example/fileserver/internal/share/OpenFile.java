package smbdirect.example.fileserver.internal.share;

import java.nio.channels.FileChannel;

/**
 * One open of a file or directory in a {@link Share}: what CREATE granted. The protocol layer
 * keeps it under its FileId, reads and writes file data through {@link #channel()} and hands it
 * back to the share for queries, changes and the close. Not thread-safe: the server works on one
 * open from one request at a time.
 */
public interface OpenFile {

    /** FILE_SUPERSEDED (0), FILE_OPENED (1), FILE_CREATED (2) or FILE_OVERWRITTEN (3). */
    int createAction();

    /** The access granted (the generic rights mapped to file rights). */
    int grantedAccess();

    boolean isDirectory();

    /** The file's data, or {@code null} for a directory. Positional reads and writes only. */
    FileChannel channel();

    /** Whether READ is allowed (FILE_READ_DATA granted, and a file). */
    boolean canRead();

    /** Whether WRITE is allowed (FILE_WRITE_DATA or FILE_APPEND_DATA granted, a file, share writable). */
    boolean canWrite();

    /** The file's attributes and times now. */
    FileInfo info() throws smbdirect.example.fileserver.internal.smb2.SmbStatusException;

    /** The path relative to the share, with backslashes, for the log. */
    String path();
}
