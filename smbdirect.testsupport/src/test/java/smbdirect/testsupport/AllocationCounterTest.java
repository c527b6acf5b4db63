package smbdirect.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The counter sees an allocation of the thread it reads, and reading one thread allocates nothing itself. */
class AllocationCounterTest {

    private static volatile Object sink;

    @Test
    void countsWhatAThreadAllocatesAndNothingForReadingIt() {
        AllocationCounter counter = AllocationCounter.enabled();
        long me = Thread.currentThread().getId();
        long idle = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 5 && idle != 0; attempt++) { // the first reads may load classes
            long before = counter.bytes(me);
            idle = counter.bytes(me) - before;
        }
        assertEquals(0, idle, "bytes allocated by reading the counter");
        long before = counter.bytes(me);
        sink = new byte[1 << 20];
        long allocated = counter.bytes(me) - before;
        assertTrue(allocated >= 1 << 20 && allocated < (1 << 20) + 4096, "1 MiB array counted as " + allocated);
    }

    @Test
    void findsThreadsByNameAndPutsTheCallingThreadLast() throws Exception {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "allocation-counter-test-worker");
        t.setDaemon(true);
        t.start();
        try {
            List<Thread> found = AllocationCounter.threadsNamed("allocation-counter-test-");
            assertEquals(List.of(t), found);
            long[] ids = AllocationCounter.idsAndCurrent(found);
            assertEquals(2, ids.length);
            assertEquals(t.getId(), ids[0]);
            assertEquals(Thread.currentThread().getId(), ids[1]);
            AllocationCounter counter = AllocationCounter.enabled();
            long[] each = counter.bytes(ids);
            assertTrue(counter.total(ids) >= each[0] + each[1], "the total is read after the single values");
        } finally {
            t.interrupt();
            t.join(10_000);
        }
    }
}
