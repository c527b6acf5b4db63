package smbdirect.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import smbdirect.testsupport.AllocationCounter;

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
    void percentilesKeepThreeSignificantDigits() {
        LatencyHistogram h = new LatencyHistogram();
        for (long v = 1; v <= 100_000; v++) {
            h.record(v * 1000);
        }
        long p50 = h.quantile(0.5);
        long p99 = h.quantile(0.99);
        assertTrue(p50 >= 50_000_000L && p50 <= 50_000_000L * 1001 / 1000, "p50 " + p50);
        assertTrue(p99 >= 99_000_000L && p99 <= 99_000_000L * 1001 / 1000, "p99 " + p99);
    }

    @Test
    void valuesBeyondTheRangeCountAsItsTop() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(Long.MAX_VALUE);
        h.record(-5);
        assertEquals(2, h.count());
        assertTrue(h.quantile(1.0) >= 3_600_000_000_000L, "top " + h.quantile(1.0));
        assertEquals(1, h.quantile(0.5));
    }

    @Test
    void recordingAllocatesNothingPerValue() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(1);
        AllocationCounter counter = AllocationCounter.enabled();
        long me = Thread.currentThread().getId();
        for (long v = 1; v < 100_000; v++) { // warm: the JIT compiles record() first
            h.record(v * 37);
        }
        long before = counter.bytes(me);
        for (long v = 1; v < 100_000; v++) {
            h.record(v * 37);
        }
        long allocated = counter.bytes(me) - before;
        // a few bytes of the JIT's own bookkeeping may fall on this thread once; nothing per value
        assertTrue(allocated < 1024, "recording 100,000 values allocated " + allocated + " bytes");
    }

    @Test
    void emptyHistogramReportsZero() {
        assertEquals(0, new LatencyHistogram().quantile(0.99));
    }

    @Test
    void formatShowsThreeSignificantDigitsInTheUnitThatSuitsTheValue() {
        assertEquals("640 ns", LatencyHistogram.format(640));
        assertEquals("53.2 us", LatencyHistogram.format(53_213));
        assertEquals("1 us", LatencyHistogram.format(1_000));
        assertEquals("9.96 ms", LatencyHistogram.format(9_961_472));
        assertEquals("105 ms", LatencyHistogram.format(104_857_600));
        assertEquals("1 ms", LatencyHistogram.format(999_999));
        assertEquals("3.6 s", LatencyHistogram.format(3_600_000_000L));
        assertEquals("3600 s", LatencyHistogram.format(3_600_000_000_000L));
    }
}
