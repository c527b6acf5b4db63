package smbdirect.example.fileserver.internal.share;

import java.nio.file.Path;

/**
 * A file or directory that has opens: where it is now (a rename moves every open of it and of
 * what lies below it), how many opens it has, and whether it is to be deleted when the last one
 * closes ([MS-FSCC] 2.4.11 DeletePending). Guarded by the share's lock.
 */
final class Node {

    Path path;
    int opens;
    boolean deletePending;
    /** Already removed from the file system (FileDispositionInformationEx with POSIX semantics). */
    boolean unlinked;

    Node(Path path) {
        this.path = path;
    }
}
