package smbdirect.impl.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

class ViolationTest {

    @Test
    void terminateCarriesNoStatus() {
        Violation v = new Violation("R-3.1.5.8-02", Violation.Action.TERMINATE, "CreditsRequested", 0, "is not at least 1");
        assertEquals(0, v.status());
        assertEquals("R-3.1.5.8-02: CreditsRequested=0 is not at least 1", v.toString());
        assertThrows(IllegalArgumentException.class,
                () -> new Violation("R", Violation.Action.TERMINATE, "f", 0, "d", SmbdWire.STATUS_NOT_SUPPORTED));
    }

    @Test
    void R_3_1_5_6_04_failResponseDefaultsToStatusNotSupported() {
        Violation v = new Violation("R-3.1.5.6-03", Violation.Action.FAIL_RESPONSE, "MaxVersion", 0x00FF, "excludes 0x0100");
        assertEquals(SmbdWire.STATUS_NOT_SUPPORTED, v.status());
        assertEquals("R-3.1.5.6-03: MaxVersion=0x00FF excludes 0x0100 (answer with a failure Negotiate Response,"
                + " Status=0xC00000BB)", v.toString());
    }

    @Test
    void R_3_1_5_6_17_failResponseNeedsErrorSeverity() {
        Violation v = new Violation("R-3.1.5.6-17", Violation.Action.FAIL_RESPONSE, "ReceiveCredits", 0, "is 0",
                SmbdWire.STATUS_INSUFFICIENT_RESOURCES);
        assertEquals(SmbdWire.STATUS_INSUFFICIENT_RESOURCES, v.status());
        assertThrows(IllegalArgumentException.class,
                () -> new Violation("R", Violation.Action.FAIL_RESPONSE, "f", 0, "d", 0));
    }

    @Test
    void versionViolationFromTheCodecReadsWell() {
        ByteBuffer b = ByteBuffer.allocate(20);
        NegotiateRequest.encode(b, 0, 0x0200, 0x0300, 1, 1, 128, 131072);
        assertEquals("R-3.1.5.6-03: MinVersion=0x0200 is above 0x0100, so [MinVersion, MaxVersion] excludes 0x0100"
                + " (answer with a failure Negotiate Response, Status=0xC00000BB)",
                NegotiateRequest.check(b, 0, 20).toString());
    }
}
