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
    /**
     * The FileId of the compound so far: the last one a request of it opened or used, or
     * {@code null}; {@link #chainStatus} says why there is none (the request that was to open or
     * find it failed).
     */
    long[] chainFileId;
    int chainStatus = NtStatus.SUCCESS;
    /** The key of a signed request, verified: its response is signed with it ([MS-SMB2] 3.3.4.1.1). */
    byte[] signingKey;
    /** The FileId this request opened or used, once known. */
    long[] fileId;

    RequestContext(Smb2Connection connection, Smb2Request request) {
        this.connection = connection;
        this.request = request;
        this.sessionId = request.header().sessionId();
        this.treeId = request.header().treeId();
    }

    /**
     * The open a FileId field at {@code bodyOffset} names: all ones in a related request means the
     * FileId the compound opened or used last; when the request that was to open or find it failed
     * (a CREATE, a FileId not found), this request fails with the same status (3.3.5.2.7.2). A request that merely failed after using
     * the FileId (a QUERY_INFO) does not stop the next one (the CLOSE) from using it.
     */
    Open open(int bodyOffset) throws SmbStatusException {
        long persistent = request.u64(bodyOffset);
        long volatileId = request.u64(bodyOffset + 8);
        if (persistent == Smb2.FILE_ID_PREVIOUS && volatileId == Smb2.FILE_ID_PREVIOUS && request.header().isRelated()) {
            if (chainFileId == null) {
                throw chainStatus != NtStatus.SUCCESS
                        ? new SmbStatusException(chainStatus, "the request before it in the compound failed")
                        : new SmbStatusException(NtStatus.INVALID_PARAMETER, "no FileId earlier in the compound");
            }
            persistent = chainFileId[0];
            volatileId = chainFileId[1];
        }
        Open open = connection.opens().find(persistent, volatileId, sessionId, treeId);
        fileId = new long[] {persistent, volatileId};
        return open;
    }

    static CompletableFuture<Smb2Response> done(Smb2Response response) {
        return CompletableFuture.completedFuture(response);
    }
}
