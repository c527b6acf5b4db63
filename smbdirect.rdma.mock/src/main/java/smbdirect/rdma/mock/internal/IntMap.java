package smbdirect.rdma.mock.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Open-addressing map from a non-zero int key to a value: lookups allocate nothing (no boxing).
 * Not thread-safe.
 */
final class IntMap<V> {
    private int[] keys = new int[16];
    private Object[] values = new Object[16];
    private int size;

    int size() {
        return size;
    }

    @SuppressWarnings("unchecked")
    V get(int key) {
        if (key == 0) {
            return null;
        }
        int mask = keys.length - 1;
        for (int i = mix(key) & mask;; i = (i + 1) & mask) {
            int k = keys[i];
            if (k == key) {
                return (V) values[i];
            }
            if (k == 0) {
                return null;
            }
        }
    }

    void put(int key, V value) {
        if (key == 0) {
            throw new IllegalArgumentException("key 0 is reserved");
        }
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        for (int i = mix(key) & mask;; i = (i + 1) & mask) {
            if (keys[i] == key) {
                values[i] = value;
                return;
            }
            if (keys[i] == 0) {
                keys[i] = key;
                values[i] = value;
                size++;
                return;
            }
        }
    }

    @SuppressWarnings("unchecked")
    V remove(int key) {
        if (key == 0) {
            return null;
        }
        int mask = keys.length - 1;
        int i = mix(key) & mask;
        while (keys[i] != key) {
            if (keys[i] == 0) {
                return null;
            }
            i = (i + 1) & mask;
        }
        V old = (V) values[i];
        keys[i] = 0;
        values[i] = null;
        size--;
        // backward-shift deletion keeps probe chains intact
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            int k = keys[j];
            if (k == 0) {
                return old;
            }
            int home = mix(k) & mask;
            boolean move = i <= j ? (home <= i || home > j) : (home <= i && home > j);
            if (move) {
                keys[i] = k;
                values[i] = values[j];
                keys[j] = 0;
                values[j] = null;
                i = j;
            }
        }
    }

    @SuppressWarnings("unchecked")
    List<V> values() {
        List<V> out = new ArrayList<>(size);
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != 0) {
                out.add((V) values[i]);
            }
        }
        return out;
    }

    void clear() {
        keys = new int[16];
        values = new Object[16];
        size = 0;
    }

    private void grow() {
        int[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new int[oldKeys.length * 2];
        values = new Object[oldKeys.length * 2];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != 0) {
                @SuppressWarnings("unchecked")
                V v = (V) oldValues[i];
                put(oldKeys[i], v);
            }
        }
    }

    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
