package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TREE_CONNECT ([MS-SMB2] 3.3.5.7) and TREE_DISCONNECT (3.3.5.8). {@code \\server\NAME} with the
 * share's name (without regard to case) is the disk share; {@code IPC$} a pipe share on which
 * CREATE finds nothing (cifs connects to it for FSCTLs such as VALIDATE_NEGOTIATE_INFO); any other
 * name STATUS_BAD_NETWORK_NAME.
 */
final class TreeCommands {

    private static final Logger LOG = LoggerFactory.getLogger(TreeCommands.class);

    static final int SHARE_TYPE_DISK = 0x01;
    static final int SHARE_TYPE_PIPE = 0x02;
    /** FILE_ALL_ACCESS ([MS-SMB2] 2.2.13.1.1). */
    static final int ACCESS_ALL = 0x001F01FF;
    /** FILE_GENERIC_READ | FILE_GENERIC_EXECUTE: a read-only share. */
    static final int ACCESS_READ = 0x001200A9;

    private TreeCommands() {
    }

    static CompletableFuture<Smb2Response> treeConnect(RequestContext rc) throws SmbStatusException {
        Smb2Request req = rc.request;
        String path = req.utf16("Path", req.u16(4), req.u16(6));
        String name = shareName(path);
        boolean pipe;
        int maximalAccess;
        if (name.equalsIgnoreCase("IPC$")) {
            pipe = true;
            maximalAccess = ACCESS_READ;
        } else if (name.equalsIgnoreCase(rc.connection.share().name())) {
            pipe = false;
            maximalAccess = maximalAccess(rc.connection);
        } else {
            LOG.info("{}: TREE_CONNECT to '{}' refused: no such share", rc.connection, path);
            throw new SmbStatusException(NtStatus.BAD_NETWORK_NAME, "no share '" + name + "'");
        }
        TreeConnect tree = rc.session.addTree(pipe, name.toUpperCase(Locale.ROOT));
        rc.treeId = tree.id();
        LOG.debug("{}: {} connected to {} as TreeId {}", rc.connection, rc.session, path, tree.id());
        ByteBuffer b = Smb2Response.body(16);
        b.putShort((short) 16).put((byte) (pipe ? SHARE_TYPE_PIPE : SHARE_TYPE_DISK)).put((byte) 0).putInt(0).putInt(0)
                .putInt(maximalAccess);
        return RequestContext.done(Smb2Response.success(b.position(0)));
    }

    /** The disk share's MaximalAccess: everything, or reading only on a read-only share. */
    static int maximalAccess(Smb2Connection c) {
        return c.share().readOnly() ? ACCESS_READ : ACCESS_ALL;
    }

    /** The share's part of {@code \\server\share} (what follows the server name). */
    static String shareName(String path) throws SmbStatusException {
        String p = path;
        while (p.startsWith("\\")) {
            p = p.substring(1);
        }
        int slash = p.indexOf('\\');
        if (slash < 0 || slash == p.length() - 1) {
            throw new SmbStatusException(NtStatus.BAD_NETWORK_NAME, "Path '" + path + "': not \\\\server\\share");
        }
        String name = p.substring(slash + 1);
        return name.endsWith("\\") ? name.substring(0, name.length() - 1) : name;
    }

    /** TREE_DISCONNECT: closes the tree's opens. */
    static CompletableFuture<Smb2Response> treeDisconnect(RequestContext rc) {
        Smb2Connection c = rc.connection;
        rc.session.removeTree(rc.tree.id());
        for (Open o : c.opens().removeAll(rc.session.id(), rc.tree.id())) {
            c.closeQuietly(o);
        }
        return RequestContext.done(Smb2Response.success(Dispatcher.fixed(4)));
    }
}
