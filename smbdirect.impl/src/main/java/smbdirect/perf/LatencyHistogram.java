package smbdirect.perf;

/**
 * Log-linear histogram of nanosecond latencies: 64 powers of two with 16 linear sub-buckets each
 * (about 6 % resolution), preallocated, so recording allocates nothing.
 *
 * <p>Not thread-safe: one writer (the connection's serial context), read after the run.
 */
final class LatencyHistogram {

    private static final int SUB = 16;
    private final long[] buckets = new long[64 * SUB];
    private long total;

    void record(long nanos) {
        long v = Math.max(0, nanos);
        buckets[index(v)]++;
        total++;
    }

    /** Forgets everything recorded (the end of a warm-up). */
    void reset() {
        java.util.Arrays.fill(buckets, 0);
        total = 0;
    }

    long count() {
        return total;
    }

    /** The value at quantile {@code q} (0..1) in nanoseconds (the bucket's upper bound), 0 when empty. */
    long quantile(double q) {
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * total);
        rank = Math.max(1, Math.min(total, rank));
        long seen = 0;
        for (int i = 0; i < buckets.length; i++) {
            seen += buckets[i];
            if (seen >= rank) {
                return upperBound(i);
            }
        }
        return upperBound(buckets.length - 1);
    }

    static int index(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int exp = 63 - Long.numberOfLeadingZeros(v);
        int sub = (int) ((v >>> (exp - 4)) & (SUB - 1));
        return (exp - 3) * SUB + sub;
    }

    static long upperBound(int index) {
        if (index < SUB) {
            return index;
        }
        int exp = index / SUB + 3;
        int sub = index % SUB;
        if (exp >= 63) {
            return Long.MAX_VALUE;
        }
        long base = 1L << exp;
        long step = base >>> 4;
        return base + (sub + 1) * step - 1;
    }
}
