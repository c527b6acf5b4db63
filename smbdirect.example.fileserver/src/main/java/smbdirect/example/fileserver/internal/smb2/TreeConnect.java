package smbdirect.example.fileserver.internal.smb2;

/**
 * One tree connect of a session ([MS-SMB2] 3.3.1.10): the disk share, or IPC$ (which opens nothing).
 *
 * @param id TreeId
 * @param pipe whether it is IPC$
 * @param shareName the name the client connected to, for the log
 */
public record TreeConnect(int id, boolean pipe, String shareName) {
}
