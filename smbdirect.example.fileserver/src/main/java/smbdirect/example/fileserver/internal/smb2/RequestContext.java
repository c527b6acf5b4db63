package smbdirect.example.fileserver.internal.smb2;

import java.util.concurrent.CompletableFuture;

/**
 * One request on its way through the server: the connection, the request, the session and tree it
 * acts in (for a related request of a compound, those of the previous request, [MS-SMB2]
 * 3.3.5.2.7.2), and the SessionId and TreeId its response carries. Used by one thread at a time.
 */
final class RequestContext {

    final Smb2Connection connection;
    final Smb2Request request;
    /** SessionId and TreeId of the response; a SESSION_SETUP or TREE_CONNECT sets the new one. */
    long sessionId;
    int treeId;
    Session session;
    TreeConnect tree;
    /** The FileId the previous request of the compound used or opened, or {@code null}. */
    long[] previousFileId;
    /** The status of the previous request of the compound. */
    int previousStatus;

    RequestContext(Smb2Connection connection, Smb2Request request) {
        this.connection = connection;
        this.request = request;
        this.sessionId = request.header().sessionId();
        this.treeId = request.header().treeId();
    }

    /**
     * The open a FileId field at {@code bodyOffset} names: all ones in a related request means the
     * previous request's FileId; when that request failed, this one fails with its status
     * (3.3.5.2.7.2).
     */
    Open open(int bodyOffset) throws SmbStatusException {
        long persistent = request.u64(bodyOffset);
        long volatileId = request.u64(bodyOffset + 8);
        if (persistent == Smb2.FILE_ID_PREVIOUS && volatileId == Smb2.FILE_ID_PREVIOUS && request.header().isRelated()) {
            if (previousStatus != NtStatus.SUCCESS) {
                throw new SmbStatusException(previousStatus, "the previous request of the compound failed");
            }
            if (previousFileId == null) {
                throw new SmbStatusException(NtStatus.INVALID_PARAMETER, "FileId of the previous request: none");
            }
            persistent = previousFileId[0];
            volatileId = previousFileId[1];
        }
        return connection.opens().find(persistent, volatileId, sessionId, treeId);
    }

    static CompletableFuture<Smb2Response> done(Smb2Response response) {
        return CompletableFuture.completedFuture(response);
    }
}
