package smbdirect.perf;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * Nanosecond latencies in an HdrHistogram of fixed range (1 ns to one hour) and three significant
 * digits, allocated once, so recording allocates nothing; a value beyond the range counts as the
 * range's top. Percentiles come back as HdrHistogram's highest value equivalent to the recorded ones,
 * and {@link #format(long)} prints them with the three digits they have, in the unit that suits them.
 *
 * <p>Not thread-safe: one writer (the connection's serial context), read after the run.
 */
final class LatencyHistogram {

    /** The significant decimal digits every value keeps. */
    static final int DIGITS = 3;
    private static final long HIGHEST = TimeUnit.HOURS.toNanos(1);

    private final Histogram histogram = new Histogram(1, HIGHEST, DIGITS);

    void record(long nanos) {
        histogram.recordValue(Math.min(HIGHEST, Math.max(1, nanos)));
    }

    /** Forgets everything recorded (the end of a warm-up). */
    void reset() {
        histogram.reset();
    }

    /** Adds what {@code other} recorded to this one (the sum of several connections, after their runs). */
    void add(LatencyHistogram other) {
        histogram.add(other.histogram);
    }

    long count() {
        return histogram.getTotalCount();
    }

    /** The value at quantile {@code q} (0..1) in nanoseconds, 0 when empty. */
    long quantile(double q) {
        return count() == 0 ? 0 : histogram.getValueAtPercentile(q * 100);
    }

    /**
     * {@code nanos} with {@link #DIGITS} significant digits in ns, us, ms or s, whichever keeps the
     * number between 1 and 1000 ({@code 53.2 us}, {@code 9.96 ms}, {@code 105 ms}); the precision a
     * percentile of this histogram has, and no more.
     */
    static String format(long nanos) {
        if (nanos < 1000) {
            return nanos + " ns";
        }
        String[] units = {"us", "ms", "s"};
        BigDecimal v = BigDecimal.valueOf(nanos).round(new MathContext(DIGITS));
        int unit = -1;
        while (unit < units.length - 1 && v.compareTo(BigDecimal.valueOf(1000)) >= 0) {
            v = v.movePointLeft(3);
            unit++;
        }
        return v.stripTrailingZeros().toPlainString() + " " + units[unit];
    }
}
