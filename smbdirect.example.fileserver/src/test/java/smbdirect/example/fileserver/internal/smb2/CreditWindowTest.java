package smbdirect.example.fileserver.internal.smb2;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The command sequence window ([MS-SMB2] 3.3.1.1, 3.3.1.2, 3.3.5.2.3). */
class CreditWindowTest {

    @Test
    void windowStartsAtMessageIdZeroOnly() {
        CreditWindow w = new CreditWindow();
        assertThrows(MalformedMessageException.class, () -> w.consume(1, 1));
        assertDoesNotThrow(() -> w.consume(0, 1));
        assertThrows(MalformedMessageException.class, () -> w.consume(1, 1), "nothing granted yet");
    }

    @Test
    void aMessageIdIsUsedOnce() throws Exception {
        CreditWindow w = new CreditWindow();
        w.consume(0, 1);
        w.grant(10);
        w.consume(2, 1);
        assertThrows(MalformedMessageException.class, () -> w.consume(2, 1));
        assertThrows(MalformedMessageException.class, () -> w.consume(0, 1));
        assertDoesNotThrow(() -> w.consume(1, 1));
    }

    @Test
    void creditChargeConsumesConsecutiveIds() throws Exception {
        CreditWindow w = new CreditWindow();
        w.consume(0, 1);
        w.grant(8);
        w.consume(1, 4);
        assertThrows(MalformedMessageException.class, () -> w.consume(3, 1));
        assertThrows(MalformedMessageException.class, () -> w.consume(5, 5), "beyond the 8 granted");
        assertDoesNotThrow(() -> w.consume(5, 4));
        assertEquals(0, w.outstanding());
    }

    @Test
    void grantsKeepOutstandingCreditsAtMost512() throws Exception {
        CreditWindow w = new CreditWindow();
        assertEquals(500, w.grant(500));
        assertEquals(11, w.grant(500), "501 outstanding before: 11 more reach 512");
        assertEquals(0, w.grant(5));
        w.consume(0, 3);
        assertEquals(3, w.grant(100));
        assertEquals(CreditWindow.MAX_OUTSTANDING, w.outstanding());
    }

    @Test
    void aClientWithoutCreditsIsGrantedOne() throws Exception {
        CreditWindow w = new CreditWindow();
        w.consume(0, 1);
        assertEquals(1, w.grant(0));
        assertDoesNotThrow(() -> w.consume(1, 1));
    }

    @Test
    void reservedMessageIdClosesTheConnection() {
        assertThrows(MalformedMessageException.class, () -> new CreditWindow().consume(-1L, 1));
    }
}
