package smbdirect.example.fileserver.internal.smb2;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import smbdirect.example.fileserver.internal.auth.NtlmAuthenticator;

/**
 * One SMB2 session ([MS-SMB2] 3.3.1.8): its logon exchange while in progress, then who logged on,
 * and its tree connects. Thread-safe.
 */
public final class Session {

    public enum State { IN_PROGRESS, VALID }

    private final long id;
    private volatile State state = State.IN_PROGRESS;
    private NtlmAuthenticator.Exchange exchange;
    /** PreauthIntegrityHashValue of the session (3.1.1), or {@code null}. */
    private byte[] preauthHash;
    private volatile String user;
    private volatile boolean guest;
    /** Session.SigningKey of an account's session ([MS-SMB2] 3.3.5.5.3), or {@code null} (guest, in progress). */
    private volatile byte[] signingKey;
    private final Map<Integer, TreeConnect> trees = new ConcurrentHashMap<>();
    private final AtomicInteger nextTreeId = new AtomicInteger(1);

    Session(long id, byte[] preauthHash) {
        this.id = id;
        this.preauthHash = preauthHash;
    }

    public long id() {
        return id;
    }

    public State state() {
        return state;
    }

    public String user() {
        return user;
    }

    synchronized NtlmAuthenticator.Exchange exchange(NtlmAuthenticator authenticator) {
        if (exchange == null) {
            exchange = authenticator.newExchange();
        }
        return exchange;
    }

    synchronized byte[] preauthHash() {
        return preauthHash;
    }

    synchronized void preauthHash(byte[] value) {
        preauthHash = value;
    }

    byte[] signingKey() {
        return signingKey;
    }

    void signingKey(byte[] key) {
        signingKey = key;
    }

    synchronized void loggedOn(String who, boolean asGuest) {
        exchange = null;
        user = who;
        guest = asGuest;
        state = State.VALID;
    }

    TreeConnect addTree(boolean pipe, String shareName) {
        TreeConnect tree = new TreeConnect(nextTreeId.getAndIncrement(), pipe, shareName);
        trees.put(tree.id(), tree);
        return tree;
    }

    TreeConnect tree(int treeId) {
        return trees.get(treeId);
    }

    TreeConnect removeTree(int treeId) {
        return trees.remove(treeId);
    }

    @Override
    public String toString() {
        return "session 0x" + Long.toHexString(id) + (user == null ? "" : " (" + user + (guest ? ", guest)" : ")"));
    }
}
