/**
 * The served directory: path resolution inside the share, CREATE dispositions, [MS-FSCC]
 * information classes.
 *
 * <p>{@link smbdirect.example.fileserver.internal.share.Share} is the one entry: the protocol
 * layer turns a CREATE into a {@link smbdirect.example.fileserver.internal.share.CreateRequest},
 * keeps the {@link smbdirect.example.fileserver.internal.share.OpenFile} it gets under its FileId,
 * reads and writes through {@code OpenFile.channel()} itself, and hands the open back for
 * QUERY_INFO, SET_INFO, QUERY_DIRECTORY, FLUSH and CLOSE. A failure is an
 * {@code SmbStatusException} carrying the NTSTATUS and the reason for the log;
 * {@link smbdirect.example.fileserver.internal.share.IoStatus} maps the file system's
 * {@code IOException}s (the protocol layer uses it for READ and WRITE too).
 *
 * <p>Inside: {@code Share} resolves names and keeps a {@code Node} per opened name (delete
 * pending, renames); {@code LocalOpen} is what one CREATE granted and where its enumeration
 * stands; {@code FileStat} reads a file's attributes as the classes report them;
 * {@code InfoClasses} and {@code DirectoryEntries} write the [MS-FSCC] 2.4 and 2.5 layouts;
 * {@code Wildcard} matches search patterns; {@code Fscc} holds the numbers.
 */
package smbdirect.example.fileserver.internal.share;
