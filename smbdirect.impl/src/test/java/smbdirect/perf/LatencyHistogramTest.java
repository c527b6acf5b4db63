package smbdirect.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void smallValuesAreExact() {
        LatencyHistogram h = new LatencyHistogram();
        for (int v = 1; v <= 31; v++) {
            h.record(v);
        }
        assertEquals(16, h.quantile(0.5));
        assertEquals(31, h.quantile(1.0));
        assertEquals(31, h.count());
    }

    @Test
    void percentilesAreWithinSevenPercentOfTheTrueValue() {
        LatencyHistogram h = new LatencyHistogram();
        for (long v = 1; v <= 100_000; v++) {
            h.record(v * 1000);
        }
        long p50 = h.quantile(0.5);
        long p99 = h.quantile(0.99);
        assertTrue(p50 >= 50_000_000L && p50 <= 50_000_000L * 107 / 100, "p50 " + p50);
        assertTrue(p99 >= 99_000_000L && p99 <= 99_000_000L * 107 / 100, "p99 " + p99);
    }

    @Test
    void bucketsAreContiguousAndOrdered() {
        long previousUpper = -1;
        for (int i = 0; i < 60 * 16; i++) {
            long upper = LatencyHistogram.upperBound(i);
            assertTrue(upper > previousUpper, "bucket " + i);
            assertEquals(i, LatencyHistogram.index(upper), "bucket " + i + " upper bound " + upper);
            assertEquals(i, LatencyHistogram.index(previousUpper + 1), "bucket " + i + " lower bound");
            previousUpper = upper;
        }
    }

    @Test
    void emptyHistogramReportsZero() {
        assertEquals(0, new LatencyHistogram().quantile(0.99));
    }
}
