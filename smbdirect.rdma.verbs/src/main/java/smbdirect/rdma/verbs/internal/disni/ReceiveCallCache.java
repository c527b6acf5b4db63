package smbdirect.rdma.verbs.internal.disni;

import com.ibm.disni.verbs.SVCPostRecv;

/**
 * Pre-built receive calls keyed by (address, length, lkey, wr_id): DiSNI 2.0's
 * {@link SVCPostRecv} cannot be modified after it is built, so a receive buffer that is posted
 * again reuses the call built the first time. Open addressing, no removal; once half full, further
 * distinct receives are not cached (their calls are built, executed and freed). Not thread-safe:
 * used under the owning endpoint's post lock.
 */
final class ReceiveCallCache {

    private final long[] addresses;
    private final int[] lengths;
    private final int[] keys;
    private final long[] wrIds;
    private final SVCPostRecv[] calls;
    private int size;

    ReceiveCallCache(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected) * 2 - 1) << 1;
        addresses = new long[capacity];
        lengths = new int[capacity];
        keys = new int[capacity];
        wrIds = new long[capacity];
        calls = new SVCPostRecv[capacity];
    }

    private int slot(long address, int length, int key, long wrId) {
        long h = address * 0x9E3779B97F4A7C15L ^ length * 31L ^ key ^ wrId * 0xC2B2AE3D27D4EB4FL;
        return (int) (h ^ (h >>> 32)) & (calls.length - 1);
    }

    SVCPostRecv get(long address, int length, int key, long wrId) {
        int mask = calls.length - 1;
        for (int i = slot(address, length, key, wrId);; i = (i + 1) & mask) {
            SVCPostRecv call = calls[i];
            if (call == null) {
                return null;
            }
            if (addresses[i] == address && lengths[i] == length && keys[i] == key && wrIds[i] == wrId) {
                return call;
            }
        }
    }

    /** Stores a call; false when the cache is half full and the call was not kept. */
    boolean put(long address, int length, int key, long wrId, SVCPostRecv call) {
        if ((size + 1) * 2 > calls.length) {
            return false;
        }
        int mask = calls.length - 1;
        int i = slot(address, length, key, wrId);
        while (calls[i] != null) {
            i = (i + 1) & mask;
        }
        addresses[i] = address;
        lengths[i] = length;
        keys[i] = key;
        wrIds[i] = wrId;
        calls[i] = call;
        size++;
        return true;
    }

    int size() {
        return size;
    }

    void free() {
        for (int i = 0; i < calls.length; i++) {
            if (calls[i] != null) {
                calls[i].free();
                calls[i] = null;
            }
        }
        size = 0;
    }
}
