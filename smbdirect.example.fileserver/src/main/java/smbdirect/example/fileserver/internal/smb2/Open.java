package smbdirect.example.fileserver.internal.smb2;

import smbdirect.example.fileserver.internal.share.OpenFile;

/**
 * One open ([MS-SMB2] 3.3.1.10) under its FileId: the share's {@link OpenFile}, and the session
 * and tree it belongs to. Requests other than READ and WRITE (positional, on the file's channel)
 * work on it while holding its monitor, since an {@link OpenFile} serves one request at a time.
 *
 * @param persistentId FileId.Persistent
 * @param volatileId FileId.Volatile
 * @param sessionId the session that opened it
 * @param treeId the tree it was opened in
 * @param file what the share opened
 */
public record Open(long persistentId, long volatileId, long sessionId, int treeId, OpenFile file) {
}
