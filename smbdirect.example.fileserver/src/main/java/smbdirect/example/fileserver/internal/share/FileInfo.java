package smbdirect.example.fileserver.internal.share;

/**
 * What a CREATE and a CLOSE response report about a file ([MS-SMB2] 2.2.14, 2.2.16): times as
 * FILETIME (100 ns since 1601-01-01 UTC), sizes in bytes.
 */
public record FileInfo(long creationTime, long lastAccessTime, long lastWriteTime, long changeTime,
        long allocationSize, long endOfFile, int fileAttributes) {
}
