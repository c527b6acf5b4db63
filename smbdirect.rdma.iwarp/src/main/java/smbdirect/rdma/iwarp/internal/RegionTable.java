package smbdirect.rdma.iwarp.internal;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import smbdirect.api.rdma.MemoryAccess;

/**
 * The registrations of one endpoint, looked up by STag index on the receive and transmit paths
 * (RFC 5042: an STag is only usable on the stream it was registered for). Open addressing over an
 * int key, so lookups neither box nor allocate. STag indices are random 24-bit values other than 0
 * and unique among live registrations; keys are random 8-bit values, so a stale STag of an earlier
 * registration fails the key check (iwarp.md §6.1). Base addresses are random multiples of 4096
 * below 2^63 - 2^32 (iwarp.md §1.3), never derived from a JVM address.
 *
 * <p>Thread-safe: every method synchronizes on the table; nothing calls out while holding it.
 */
final class RegionTable {

    private static final int INDEX_MASK = 0xFF_FFFF;
    private static final long BASE_MASK = 0x7FFF_FFFE_FFFF_F000L;

    private final SecureRandom random;
    private int[] keys = new int[16];
    private RegionImpl[] values = new RegionImpl[16];
    private int size;

    RegionTable(SecureRandom random) {
        this.random = random;
    }

    /** Creates and enters a registration with a fresh STag and base address. */
    synchronized RegionImpl register(EndpointImpl owner, ByteBuffer buffer, Set<MemoryAccess> access) {
        int index;
        do {
            index = random.nextInt() & INDEX_MASK;
        } while (index == 0 || find(index) >= 0);
        int key = random.nextInt() & 0xFF;
        long base;
        do {
            base = random.nextLong() & BASE_MASK;
        } while (base == 0);
        RegionImpl r = new RegionImpl(owner, buffer, access, index << 8 | key, random.nextInt(), base);
        put(index, r);
        return r;
    }

    /** The live registration with STag index {@code index}, or null. */
    synchronized RegionImpl lookup(int index) {
        int slot = find(index);
        return slot < 0 ? null : values[slot];
    }

    synchronized boolean remove(RegionImpl r) {
        int slot = find(RegionImpl.index(r.stag));
        if (slot < 0 || values[slot] != r) {
            return false;
        }
        deleteAt(slot);
        return true;
    }

    /** Removes and returns every registration. */
    synchronized List<RegionImpl> removeAll() {
        List<RegionImpl> all = new ArrayList<>(size);
        for (RegionImpl r : values) {
            if (r != null) {
                all.add(r);
            }
        }
        keys = new int[16];
        values = new RegionImpl[16];
        size = 0;
        return all;
    }

    synchronized int size() {
        return size;
    }

    private int find(int index) {
        int mask = keys.length - 1;
        for (int i = mix(index) & mask;; i = (i + 1) & mask) {
            if (values[i] == null) {
                return -1;
            }
            if (keys[i] == index) {
                return i;
            }
        }
    }

    private void put(int index, RegionImpl r) {
        if ((size + 1) * 2 > keys.length) {
            int[] oldKeys = keys;
            RegionImpl[] oldValues = values;
            keys = new int[oldKeys.length * 2];
            values = new RegionImpl[oldKeys.length * 2];
            size = 0;
            for (int i = 0; i < oldKeys.length; i++) {
                if (oldValues[i] != null) {
                    insert(oldKeys[i], oldValues[i]);
                }
            }
        }
        insert(index, r);
    }

    private void insert(int index, RegionImpl r) {
        int mask = keys.length - 1;
        int i = mix(index) & mask;
        while (values[i] != null) {
            i = (i + 1) & mask;
        }
        keys[i] = index;
        values[i] = r;
        size++;
    }

    /** Backward-shift deletion keeps every probe chain unbroken. */
    private void deleteAt(int slot) {
        int mask = keys.length - 1;
        values[slot] = null;
        size--;
        int i = (slot + 1) & mask;
        while (values[i] != null) {
            int k = keys[i];
            RegionImpl v = values[i];
            values[i] = null;
            size--;
            insert(k, v);
            i = (i + 1) & mask;
        }
    }

    private static int mix(int x) {
        int h = x * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
