package smbdirect.example.fileserver.internal.smb2;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import smbdirect.example.fileserver.internal.share.OpenFile;

/**
 * The opens of one connection by FileId ([MS-SMB2] 3.3.1.7 Connection.OpenTable /
 * Session.OpenTable). FileId.Volatile is unique on the connection; FileId.Persistent is checked
 * too. An open is found only by the session and tree that opened it. Thread-safe.
 */
final class OpenTable {

    private final Map<Long, Open> opens = new ConcurrentHashMap<>();
    private final AtomicLong nextVolatile = new AtomicLong(1);
    private final long persistentSalt;

    OpenTable(long persistentSalt) {
        this.persistentSalt = persistentSalt;
    }

    Open add(long sessionId, int treeId, OpenFile file) {
        long v = nextVolatile.getAndIncrement();
        Open open = new Open(v ^ persistentSalt, v, sessionId, treeId, file);
        opens.put(v, open);
        return open;
    }

    /** The open, or STATUS_FILE_CLOSED ([MS-SMB2] 3.3.5.9-3.3.5.21: "no open ... FileId"). */
    Open find(long persistent, long volatileId, long sessionId, int treeId) throws SmbStatusException {
        Open open = opens.get(volatileId);
        if (open == null || open.persistentId() != persistent || open.sessionId() != sessionId || open.treeId() != treeId) {
            throw new SmbStatusException(NtStatus.FILE_CLOSED, String.format("FileId {0x%x, 0x%x}: no such open in this tree",
                    persistent, volatileId));
        }
        return open;
    }

    /** Takes the open out of the table; {@code false} when another request took it first. */
    boolean remove(Open open) {
        return opens.remove(open.volatileId(), open);
    }

    /** Takes every open of the session (and tree, unless {@code treeId} is 0) out of the table. */
    List<Open> removeAll(long sessionId, int treeId) {
        List<Open> taken = new ArrayList<>();
        for (Open o : opens.values()) {
            if ((sessionId == 0 || o.sessionId() == sessionId) && (treeId == 0 || o.treeId() == treeId) && remove(o)) {
                taken.add(o);
            }
        }
        return taken;
    }

    int size() {
        return opens.size();
    }
}
