package smbdirect.impl.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bounded pool of reusable objects that any thread may take from and give back to, without locks
 * and without allocating: a fixed array ring with a sequence number per slot (D. Vyukov's bounded
 * multi-producer multi-consumer queue), so a slot is never handed out twice and a stale reader can
 * never take a slot that was refilled meanwhile.
 *
 * <p>Used for the entries a thread needs when it finds a connection's serial context busy (a send or
 * an RDMA request to queue behind the running work): the entry comes from here and goes back when
 * the serial context is done with it. {@link #poll()} returns {@code null} when the pool is empty
 * (the caller creates an entry, which joins the pool when it comes back) and {@link #offer} returns
 * {@code false} when it is full (the entry is left to the garbage collector), so the pool holds at
 * most as many entries as were in use at once, up to its capacity. Both may also answer so for an
 * instant when another thread is between claiming a slot and releasing it; the cost is one entry
 * created or dropped, never an entry handed out twice.
 *
 * @param <T> the pooled objects
 */
final class SharedPool<T> {

    private static final VarHandle SEQUENCE = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle ITEM = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final VarHandle PUT;
    private static final VarHandle TAKE;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            PUT = l.findVarHandle(SharedPool.class, "put", long.class);
            TAKE = l.findVarHandle(SharedPool.class, "take", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object[] items;
    private final long[] sequences;
    private final int mask;
    @SuppressWarnings("unused")
    private volatile long put;
    @SuppressWarnings("unused")
    private volatile long take;

    /** @param capacity a power of two ≥ 2 */
    SharedPool(int capacity) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two >= 2: " + capacity);
        }
        items = new Object[capacity];
        sequences = new long[capacity];
        mask = capacity - 1;
        for (int i = 0; i < capacity; i++) {
            sequences[i] = i;
        }
    }

    /** Gives {@code item} back; {@code false} when the pool is full. */
    boolean offer(T item) {
        long pos = (long) PUT.getVolatile(this);
        for (;;) {
            int i = (int) (pos & mask);
            long diff = (long) SEQUENCE.getAcquire(sequences, i) - pos;
            if (diff == 0) {
                if (PUT.compareAndSet(this, pos, pos + 1)) {
                    ITEM.setRelease(items, i, item);
                    SEQUENCE.setRelease(sequences, i, pos + 1);
                    return true;
                }
                pos = (long) PUT.getVolatile(this);
            } else if (diff < 0) {
                return false;
            } else {
                pos = (long) PUT.getVolatile(this);
            }
        }
    }

    /** Takes an item, or {@code null} when the pool is empty. */
    @SuppressWarnings("unchecked")
    T poll() {
        long pos = (long) TAKE.getVolatile(this);
        for (;;) {
            int i = (int) (pos & mask);
            long diff = (long) SEQUENCE.getAcquire(sequences, i) - (pos + 1);
            if (diff == 0) {
                if (TAKE.compareAndSet(this, pos, pos + 1)) {
                    T item = (T) ITEM.getAcquire(items, i);
                    ITEM.setRelease(items, i, null);
                    SEQUENCE.setRelease(sequences, i, pos + mask + 1);
                    return item;
                }
                pos = (long) TAKE.getVolatile(this);
            } else if (diff < 0) {
                return null;
            } else {
                pos = (long) TAKE.getVolatile(this);
            }
        }
    }
}
