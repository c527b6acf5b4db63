package smbdirect.testsupport.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Timers run only when the clock is moved, in due order, each with the clock at its due time. */
class VirtualTimeTest {

    private final VirtualTime time = new VirtualTime();
    private final List<String> log = new ArrayList<>();

    private Runnable note(String what) {
        return () -> log.add(what + "@" + (time.nanoTime() - VirtualTime.START_NANOS));
    }

    @Test
    void timersRunInDueOrderAtTheirDueTimeAndInSchedulingOrderAtEqualTimes() {
        time.schedule(note("c"), 300);
        time.schedule(note("a"), 100);
        time.schedule(note("b1"), 200);
        time.schedule(note("b2"), 200);
        assertEquals(List.of(), log, "nothing runs by itself");
        time.advance(Duration.ofNanos(250));
        assertEquals(List.of("a@100", "b1@200", "b2@200"), log);
        assertEquals(250, time.elapsed().toNanos(), "the clock stands at the target");
        assertEquals(1, time.pending());
        time.advance(Duration.ofNanos(50));
        assertEquals(List.of("a@100", "b1@200", "b2@200", "c@300"), log);
        assertEquals(4, time.scheduledCount());
        assertEquals(0, time.pending());
    }

    @Test
    void aCancelledTimerNeverRunsAndATimerMayScheduleOneThatFallsDueInTheSameAdvance() {
        VirtualTime.Timer cancelled = time.schedule(note("cancelled"), 100);
        time.schedule(() -> {
            note("first").run();
            time.schedule(note("second"), 50);
        }, 100);
        cancelled.cancel();
        cancelled.cancel();
        assertEquals(1, time.pending());
        time.advance(Duration.ofNanos(1000));
        assertEquals(List.of("first@100", "second@150"), log);
    }

    @Test
    void theStepAfterEachRunsFirstAndAfterEveryTimerAndRunDueRunsWhatIsDueWithoutMovingTheClock() {
        time.schedule(note("t1"), 10);
        time.schedule(note("t2"), 20);
        time.advance(Duration.ofNanos(30), note("settle"));
        assertEquals(List.of("settle@0", "t1@10", "settle@10", "t2@20", "settle@20", "settle@30"), log);
        log.clear();
        time.schedule(note("now"), 0);
        time.runDue(note("settle"));
        assertEquals(List.of("settle@30", "now@30", "settle@30"), log);
        assertThrows(IllegalArgumentException.class, () -> time.advance(Duration.ofNanos(-1)));
    }
}
