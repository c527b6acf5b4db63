package smbdirect.ops.monitor;

import java.util.Arrays;

/**
 * A fixed-capacity ring of samples: a wall-clock time and one value per {@link Metric}. Not
 * thread-safe (the monitor guards it).
 */
public final class Series {

    private final long[] times;
    private final float[][] values;
    private int start;
    private int size;

    Series(int capacity) {
        times = new long[capacity];
        values = new float[Metric.values().length][capacity];
    }

    void add(long timeMillis, float[] sample) {
        int i = (start + size) % times.length;
        if (size == times.length) {
            start = (start + 1) % times.length;
        } else {
            size++;
        }
        times[i] = timeMillis;
        for (int m = 0; m < sample.length; m++) {
            values[m][i] = sample[m];
        }
    }

    /** The number of samples (at most the capacity). */
    public int size() {
        return size;
    }

    /** The sample times, oldest first (a copy). */
    public long[] times() {
        long[] t = new long[size];
        for (int k = 0; k < size; k++) {
            t[k] = times[(start + k) % times.length];
        }
        return t;
    }

    /** The values of {@code metric}, oldest first (a copy). */
    public float[] values(Metric metric) {
        float[] v = new float[size];
        float[] ring = values[metric.ordinal()];
        for (int k = 0; k < size; k++) {
            v[k] = ring[(start + k) % ring.length];
        }
        return v;
    }

    /** The newest value of {@code metric}, 0 when empty. */
    public float last(Metric metric) {
        return size == 0 ? 0 : values[metric.ordinal()][(start + size - 1) % times.length];
    }

    /** A copy. */
    Series copy() {
        Series s = new Series(times.length);
        System.arraycopy(times, 0, s.times, 0, times.length);
        for (int m = 0; m < values.length; m++) {
            s.values[m] = Arrays.copyOf(values[m], values[m].length);
        }
        s.start = start;
        s.size = size;
        return s;
    }
}
