package smbdirect.rdma.iwarp.internal;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;
import smbdirect.rdma.iwarp.internal.IwarpEndpoint.State;

/**
 * The registrations of one endpoint: the SPI's {@code register} and {@code deregister} with their
 * checks, the checks of the region a post names, and the table the receive and transmit paths look
 * registrations up in by STag index (RFC 5042: an STag is only usable on the stream it was
 * registered for). Open addressing over an int key, so lookups neither box nor allocate. STag
 * indices are random 24-bit values other than 0 and unique among live registrations; keys are random
 * 8-bit values, so a stale STag of an earlier registration fails the key check (iwarp.md §6.1). Base
 * addresses are random multiples of 4096 below 2^63 - 2^32 (iwarp.md §1.3), never derived from a JVM
 * address.
 *
 * <p>Thread-safe: every method that reads or changes the table synchronizes on it; nothing calls out
 * while holding it.
 */
final class RegionTable {

    private static final int INDEX_MASK = 0xFF_FFFF;
    private static final long BASE_MASK = 0x7FFF_FFFE_FFFF_F000L;

    private final IwarpEndpoint owner;
    private final SecureRandom random;
    private int[] keys = new int[16];
    private IwarpRegion[] values = new IwarpRegion[16];
    private int size;

    RegionTable(IwarpEndpoint owner, SecureRandom random) {
        this.owner = owner;
        this.random = random;
    }

    /** The SPI's {@code register}: checks the buffer and the access, then enters a new registration. */
    IwarpRegion register(ByteBuffer buffer, Set<MemoryAccess> access) throws RdmaException {
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(access, "access");
        owner.provider.checkOpen("register");
        if (!buffer.isDirect()) {
            throw new RdmaException("register: the buffer must be direct (the provider reads and writes it in place): "
                    + buffer);
        }
        if (!buffer.hasRemaining()) {
            throw new RdmaException("register: nothing to register (position == limit == " + buffer.position() + ")");
        }
        boolean localWrite = access.contains(MemoryAccess.LOCAL_WRITE);
        if (access.contains(MemoryAccess.REMOTE_WRITE) && !localWrite) {
            throw new RdmaException("register: access " + access + ": REMOTE_WRITE requires LOCAL_WRITE");
        }
        if (buffer.isReadOnly() && (localWrite || access.contains(MemoryAccess.REMOTE_WRITE))) {
            throw new RdmaException("register: a read-only buffer cannot be registered with " + access);
        }
        if (owner.state() == State.CLOSED) {
            throw new RdmaException("register: the endpoint is closed");
        }
        IwarpRegion r = create(buffer, access);
        if (owner.state() == State.CLOSED) {
            remove(r);
            r.registered = false;
            r.valid = false;
            throw new RdmaException("register: the endpoint is closed");
        }
        return r;
    }

    /** The SPI's {@code deregister}: the region is invalid from now on; nothing to do once the endpoint is closed. */
    void deregister(MemoryRegion region) throws RdmaException {
        IwarpRegion r = own(region, "deregister");
        if (owner.state() == State.CLOSED) {
            return;
        }
        if (!remove(r)) {
            throw new RdmaException("deregister: " + r + " is already deregistered");
        }
        r.registered = false;
        r.valid = false;
    }

    /** The endpoint is closed: every registration ends. */
    void deregisterAll() {
        for (IwarpRegion r : removeAll()) {
            r.registered = false;
            r.valid = false;
        }
    }

    /** {@code region} as a registration of this endpoint, for {@code operation}. */
    IwarpRegion own(MemoryRegion region, String operation) throws RdmaException {
        Objects.requireNonNull(region, "region");
        if (!(region instanceof IwarpRegion r) || r.owner != owner) {
            throw new RdmaException(operation + ": " + region + " is not registered on this endpoint");
        }
        return r;
    }

    /** {@code region} as a live registration of this endpoint that holds {@code [offset, offset + length)}. */
    IwarpRegion usable(MemoryRegion region, int offset, int length, String operation) throws RdmaException {
        IwarpRegion r = own(region, operation);
        if (!r.registered) {
            throw new RdmaException(operation + ": " + r + " is deregistered");
        }
        if (offset < 0 || length < 0 || (long) offset + length > r.length) {
            throw new RdmaException(operation + ": offset " + offset + " + length " + length
                    + " is outside the region of " + r.length + " bytes");
        }
        return r;
    }

    /** Creates and enters a registration with a fresh STag and base address. */
    private synchronized IwarpRegion create(ByteBuffer buffer, Set<MemoryAccess> access) {
        int index;
        do {
            index = random.nextInt() & INDEX_MASK;
        } while (index == 0 || find(index) >= 0);
        int key = random.nextInt() & 0xFF;
        long base;
        do {
            base = random.nextLong() & BASE_MASK;
        } while (base == 0);
        IwarpRegion r = new IwarpRegion(owner, buffer, access, index << 8 | key, random.nextInt(), base);
        put(index, r);
        return r;
    }

    /** The live registration with STag index {@code index}, or null. */
    synchronized IwarpRegion lookup(int index) {
        int slot = find(index);
        return slot < 0 ? null : values[slot];
    }

    synchronized boolean remove(IwarpRegion r) {
        int slot = find(IwarpRegion.index(r.stag));
        if (slot < 0 || values[slot] != r) {
            return false;
        }
        deleteAt(slot);
        return true;
    }

    /** Removes and returns every registration. */
    private synchronized List<IwarpRegion> removeAll() {
        List<IwarpRegion> all = new ArrayList<>(size);
        for (IwarpRegion r : values) {
            if (r != null) {
                all.add(r);
            }
        }
        keys = new int[16];
        values = new IwarpRegion[16];
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

    private void put(int index, IwarpRegion r) {
        if ((size + 1) * 2 > keys.length) {
            int[] oldKeys = keys;
            IwarpRegion[] oldValues = values;
            keys = new int[oldKeys.length * 2];
            values = new IwarpRegion[oldKeys.length * 2];
            size = 0;
            for (int i = 0; i < oldKeys.length; i++) {
                if (oldValues[i] != null) {
                    insert(oldKeys[i], oldValues[i]);
                }
            }
        }
        insert(index, r);
    }

    private void insert(int index, IwarpRegion r) {
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
            IwarpRegion v = values[i];
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
