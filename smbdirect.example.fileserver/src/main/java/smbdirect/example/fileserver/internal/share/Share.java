package smbdirect.example.fileserver.internal.share;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import smbdirect.example.fileserver.internal.smb2.SmbStatusException;

/**
 * One directory served as one share: every name a client gives is resolved inside it (no
 * {@code ..}, no symbolic link leading out), and the file system's answers become SMB2 CREATE,
 * QUERY_INFO, SET_INFO, QUERY_DIRECTORY and CLOSE results ([MS-SMB2] 3.3.5.9-3.3.5.21, [MS-FSCC]
 * for the information classes). Thread-safe.
 */
public final class Share {

    public Share(String name, Path root, boolean readOnly) throws IOException {
        throw new UnsupportedOperationException("not yet");
    }

    public String name() {
        throw new UnsupportedOperationException("not yet");
    }

    public boolean readOnly() {
        throw new UnsupportedOperationException("not yet");
    }

    /** CREATE: opens or creates as the request's disposition and options say. */
    public OpenFile create(CreateRequest request) throws SmbStatusException {
        throw new UnsupportedOperationException("not yet");
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
        throw new UnsupportedOperationException("not yet");
    }

    /** SET_INFO: applies {@code in} (position to limit, little-endian) of the class to the open. */
    public void setInfo(OpenFile file, int infoType, int infoClass, ByteBuffer in) throws SmbStatusException {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * QUERY_DIRECTORY ([MS-SMB2] 3.3.5.18): writes as many entries of {@code infoClass} matching
     * {@code pattern} as fit in {@code out} (each 8-byte aligned, NextEntryOffset chained), going on
     * from where the previous call on this open stopped unless {@code flags} restart
     * (SMB2_RESTART_SCANS 0x01, SMB2_REOPEN 0x10) or the pattern changed. No entry left:
     * NO_MORE_FILES (NO_SUCH_FILE when the first call matches nothing).
     */
    public void queryDirectory(OpenFile directory, int infoClass, int flags, String pattern, ByteBuffer out)
            throws SmbStatusException {
        throw new UnsupportedOperationException("not yet");
    }

    /** FLUSH: the file's data and metadata to stable storage. */
    public void flush(OpenFile file) throws SmbStatusException {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * CLOSE: closes the open (and deletes the file when delete-on-close was set by CREATE or
     * SET_INFO FileDispositionInformation); returns the attributes just before the close when
     * {@code postQuery}, else {@code null}.
     */
    public FileInfo close(OpenFile file, boolean postQuery) throws SmbStatusException {
        throw new UnsupportedOperationException("not yet");
    }
}
