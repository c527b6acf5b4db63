package smbdirect.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** A missing judge fails in strict mode and skips otherwise, with its reason either way. */
class JudgesTest {

    private final String before = System.getProperty(Judges.STRICT_PROPERTY);

    @AfterEach
    void restore() {
        if (before == null) {
            System.clearProperty(Judges.STRICT_PROPERTY);
        } else {
            System.setProperty(Judges.STRICT_PROPERTY, before);
        }
    }

    @Test
    void inStrictModeAMissingJudgeFailsTheTestWithItsReason() {
        System.setProperty(Judges.STRICT_PROPERTY, "true");
        assertTrue(Judges.strict());
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> Judges.require(false, "frobnicator not on PATH (apt-get install frobnicator)"));
        assertTrue(e.getMessage().startsWith("missing judge: frobnicator not on PATH (apt-get install frobnicator)"),
                e.getMessage());
        assertTrue(e.getMessage().contains("SMBDIRECT_STRICT=1"), e.getMessage());
    }

    @Test
    void outsideStrictModeAMissingJudgeSkipsTheTestWithItsReason() {
        System.setProperty(Judges.STRICT_PROPERTY, "false");
        assertFalse(Judges.strict());
        TestAbortedException e = assertThrows(TestAbortedException.class,
                () -> Judges.tool("no-such-tool-anywhere", "apt-get install no-such-tool"));
        assertEquals("no-such-tool-anywhere not on PATH (apt-get install no-such-tool)", e.getMessage());
    }

    @Test
    void aPresentJudgeLetsTheTestRun() {
        System.setProperty(Judges.STRICT_PROPERTY, "true");
        Judges.require(true, "never said");
        assertTrue(Judges.onPath("sh").isPresent(), "sh is on PATH");
    }

    @Test
    void aStrictValueThatIsNeitherTrueNorFalseIsRefused() {
        System.setProperty(Judges.STRICT_PROPERTY, "yes please");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, Judges::strict);
        assertEquals("-Dsmbdirect.strict=yes please is neither true (1) nor false (0)", e.getMessage());
        System.setProperty(Judges.STRICT_PROPERTY, "1");
        assertTrue(Judges.strict());
        System.setProperty(Judges.STRICT_PROPERTY, "0");
        assertFalse(Judges.strict());
    }
}
