package smbdirect.example.fileserver.internal.smb2;

import java.util.BitSet;

/**
 * The command sequence window of one connection ([MS-SMB2] 3.3.1.1, 3.3.1.2, 3.3.5.2.3): the
 * MessageIds the client may use next. It starts as {0}; every request consumes CreditCharge
 * consecutive ids (at least one), each id once; every response grants credits, which extend the
 * window at its top. The server keeps the client's outstanding credits at most {@link #MAX_OUTSTANDING}.
 * Thread-safe.
 */
public final class CreditWindow {

    /** The most credits a client holds at once. */
    public static final int MAX_OUTSTANDING = 512;

    /** Every id below {@code base} is consumed; bit i of {@code used} is id base + i. */
    private long base;
    /** The first id not granted yet. */
    private long end = 1;
    private final BitSet used = new BitSet();

    /**
     * Consumes {@code charge} ids from {@code messageId} on.
     *
     * @throws MalformedMessageException when one of them is outside the window or used already
     *     (the connection ends, 3.3.5.2.3)
     */
    public synchronized void consume(long messageId, int charge) throws MalformedMessageException {
        int n = Math.max(1, charge);
        if (messageId == -1L) {
            throw new MalformedMessageException("MessageId=0xFFFFFFFFFFFFFFFF: reserved (3.3.5.2.3)");
        }
        if (Long.compareUnsigned(messageId, base) < 0 || Long.compareUnsigned(messageId + n, end) > 0
                || messageId + n < messageId) {
            throw new MalformedMessageException("MessageId=" + Long.toUnsignedString(messageId) + " CreditCharge=" + charge
                    + ": outside the command sequence window [" + base + ", " + end + ")");
        }
        int from = (int) (messageId - base);
        int next = used.nextSetBit(from);
        if (next >= 0 && next < from + n) {
            throw new MalformedMessageException("MessageId=" + (base + next) + ": used already");
        }
        used.set(from, from + n);
        int firstFree = used.nextClearBit(0);
        if (firstFree > 0) {
            base += firstFree;
            BitSet rest = used.get(firstFree, Math.max(firstFree, used.length()));
            used.clear();
            used.or(rest);
        }
    }

    /**
     * Grants credits with a response to a request that asked for {@code requested}: as many as
     * asked, at least one when the client would otherwise hold none, never beyond
     * {@link #MAX_OUTSTANDING} outstanding. Extends the window by the number granted.
     */
    public synchronized int grant(int requested) {
        long outstanding = outstanding();
        long room = MAX_OUTSTANDING - outstanding;
        int granted = (int) Math.max(0, Math.min(Math.max(1, requested), room));
        if (granted == 0 && outstanding == 0) {
            granted = 1;
        }
        end += granted;
        return granted;
    }

    /** Ids the client may still use: granted and not consumed. */
    public synchronized long outstanding() {
        return end - base - used.cardinality();
    }
}
