package smbdirect.bench;

/**
 * Bounded busy waiting for the benchmark thread (the fabric's threads make the progress), without
 * allocation: {@code while (notYet) spin.idle(what); spin.reset();}. Not thread-safe: one per
 * benchmark thread.
 */
final class Spin {

    private static final long TIMEOUT_NANOS = 10_000_000_000L;

    private int spins;
    private long deadline;

    /**
     * One round of waiting: spins briefly, then yields (two cores are shared with the fabric's
     * completion threads).
     *
     * @throws IllegalStateException after about 10 s without progress (a lost message: the
     *     benchmark is broken)
     */
    void idle(String what) {
        if (++spins < 200) {
            Thread.onSpinWait();
            return;
        }
        Thread.yield();
        if ((spins & 0x3ff) == 0) {
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + TIMEOUT_NANOS;
            } else if (now > deadline) {
                throw new IllegalStateException("no progress waiting for " + what);
            }
        }
    }

    /** Ends a wait. */
    void reset() {
        spins = 0;
        deadline = 0;
    }
}
