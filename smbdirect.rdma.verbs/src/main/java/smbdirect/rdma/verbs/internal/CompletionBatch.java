package smbdirect.rdma.verbs.internal;

/**
 * A reused array of polled work completions in primitive form (the {@code ibv_wc} fields the
 * provider reads). Filled by {@link VerbsBackend#poll}, read by the completion thread. Not
 * thread-safe: owned by one completion thread.
 */
public final class CompletionBatch {

    final long[] wrId;
    final int[] status;
    final int[] opcode;
    final int[] vendorError;
    final int[] byteLength;
    final int[] immData;
    final int[] wcFlags;
    final int[] qpNum;

    public CompletionBatch(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("completion batch capacity must be positive: " + capacity);
        }
        wrId = new long[capacity];
        status = new int[capacity];
        opcode = new int[capacity];
        vendorError = new int[capacity];
        byteLength = new int[capacity];
        immData = new int[capacity];
        wcFlags = new int[capacity];
        qpNum = new int[capacity];
    }

    public int capacity() {
        return wrId.length;
    }

    /** Stores completion {@code i} (called by backends). */
    public void set(int i, long wrId, int status, int opcode, int vendorError, int byteLength, int immData,
            int wcFlags, int qpNum) {
        this.wrId[i] = wrId;
        this.status[i] = status;
        this.opcode[i] = opcode;
        this.vendorError[i] = vendorError;
        this.byteLength[i] = byteLength;
        this.immData[i] = immData;
        this.wcFlags[i] = wcFlags;
        this.qpNum[i] = qpNum;
    }

    public long wrId(int i) {
        return wrId[i];
    }

    public int status(int i) {
        return status[i];
    }

    public int opcode(int i) {
        return opcode[i];
    }

    public int vendorError(int i) {
        return vendorError[i];
    }

    public int byteLength(int i) {
        return byteLength[i];
    }

    public int immData(int i) {
        return immData[i];
    }

    public int wcFlags(int i) {
        return wcFlags[i];
    }
}
