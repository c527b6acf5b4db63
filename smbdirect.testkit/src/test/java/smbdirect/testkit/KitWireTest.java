package smbdirect.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/**
 * The kit's own [MS-SMBD] codec: byte for byte the examples of the spec digest (docs/spec/ms-smbd.md
 * 2.6, from [MS-SMBD] 4.1 and 4.2), and the receiver's rules it holds the transport to, each failure
 * naming its rule.
 */
class KitWireTest {

    private static String hex(byte[] b) {
        return HexFormat.ofDelimiter(" ").withUpperCase().formatHex(b);
    }

    @Test
    void theNegotiationOfTheSpecsExampleIsWrittenByteForByte() {
        assertEquals("00 01 00 01 00 00 0A 00 00 04 00 00 00 04 00 00 00 00 02 00",
                hex(KitWire.negotiateRequest(10, 1024, 1024, 131072)));
        assertEquals("00 01 00 01 00 01 00 00 0A 00 0A 00 00 00 00 00 00 00 10 00 00 04 00 00 00 04 00 00 00 00 02 00",
                hex(KitWire.negotiateResponse(10, 10, 1048576, 1024, 1024, 131072)));
    }

    @Test
    void dataTransferMessagesOfTheSpecsExamplesAreWrittenByteForByte() {
        byte[] payload = new byte[500];
        byte[] m = KitWire.data(10, 1, 0, 0, payload, 0, 500);
        assertEquals(524, m.length);
        assertEquals("0A 00 01 00 00 00 00 00 00 00 00 00 18 00 00 00 F4 01 00 00 00 00 00 00",
                hex(java.util.Arrays.copyOf(m, 24)));
        assertEquals("FF 00 0A 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
                hex(KitWire.data(255, 10, 0, 0, null, 0, 0)));
        assertEquals("FF 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
                hex(KitWire.data(255, 0, KitWire.RESPONSE_REQUESTED, 0, null, 0, 0)));
    }

    @Test
    void aNegotiateRequestBreakingAReceiversRuleIsNamedByTheRule() {
        assertNull(KitWire.checkNegotiateRequest(KitWire.negotiateRequest(10, 1024, 1024, 131072)));
        assertTrue(KitWire.checkNegotiateRequest(new byte[19]).startsWith("R-3.1.5.6-01: length 19"));
        byte[] v2 = KitWire.negotiateRequest(10, 1024, 1024, 131072);
        v2[0] = 0x00;
        v2[1] = 0x02;
        v2[3] = 0x02;
        assertEquals("R-3.1.5.6-03: [MinVersion, MaxVersion] = [0x200, 0x200] leaves out 0x0100",
                KitWire.checkNegotiateRequest(v2));
        assertTrue(KitWire.checkNegotiateRequest(KitWire.negotiateRequest(0, 1024, 1024, 131072))
                .startsWith("R-3.1.5.6-06"));
        assertTrue(KitWire.checkNegotiateRequest(KitWire.negotiateRequest(10, 1024, 127, 131072))
                .startsWith("R-3.1.5.6-07: MaxReceiveSize 127"));
        assertTrue(KitWire.checkNegotiateRequest(KitWire.negotiateRequest(10, 1024, 1024, 131071))
                .startsWith("R-3.1.5.6-08: MaxFragmentedSize 131071"));
    }

    @Test
    void aNegotiateResponseBreakingAReceiversRuleIsNamedByTheRule() {
        assertNull(KitWire.checkNegotiateResponse(KitWire.negotiateResponse(10, 10, 1 << 20, 1024, 1024, 131072), 1024));
        assertTrue(KitWire.checkNegotiateResponse(KitWire.negotiateFailure(KitWire.STATUS_NOT_SUPPORTED), 1024)
                .startsWith("R-3.1.5.7-08: Status 3221225659"));
        assertTrue(KitWire.checkNegotiateResponse(KitWire.negotiateResponse(10, 0, 1 << 20, 1024, 1024, 131072), 1024)
                .startsWith("R-3.1.5.7-05"));
        assertTrue(KitWire.checkNegotiateResponse(KitWire.negotiateResponse(10, 10, 1 << 20, 1025, 1024, 131072), 1024)
                .startsWith("R-3.1.5.7-07: PreferredSendSize 1025"));
    }

    @Test
    void fragmentsMustCountDownExactlySoThatAnEmptyMessageBetweenThemIsCaught() {
        byte[] chunk = new byte[100];
        assertNull(KitWire.checkDataTransfer(KitWire.data(10, 0, 0, 150, chunk, 0, 100), 1 << 20, 0));
        assertNull(KitWire.checkDataTransfer(KitWire.data(10, 0, 0, 50, chunk, 0, 100), 1 << 20, 150));
        assertNull(KitWire.checkDataTransfer(KitWire.data(10, 0, 0, 0, chunk, 0, 50), 1 << 20, 50));
        assertTrue(KitWire.checkDataTransfer(KitWire.data(10, 3, 0, 0, null, 0, 0), 1 << 20, 50)
                .startsWith("R-3.1.5.8-18: DataLength+RemainingDataLength 0 is not the 50 bytes still to come"));
        assertTrue(KitWire.checkDataTransfer(KitWire.data(10, 0, 0, 10, chunk, 0, 100), 1 << 20, 150)
                .startsWith("R-3.1.5.8-16"));
    }

    @Test
    void aDataTransferMessageBreakingAReceiversRuleIsNamedByTheRule() {
        assertTrue(KitWire.checkDataTransfer(new byte[19], 1 << 20, 0).startsWith("R-3.1.5.8-01"));
        assertTrue(KitWire.checkDataTransfer(KitWire.data(0, 0, 0, 0, null, 0, 0), 1 << 20, 0).startsWith("R-3.1.5.8-02"));
        byte[] odd = KitWire.data(10, 0, 0, 0, new byte[8], 0, 8);
        odd[12] = 20;
        assertTrue(KitWire.checkDataTransfer(odd, 1 << 20, 0).startsWith("R-3.1.5.8-03: DataOffset 20"));
        byte[] beyond = KitWire.data(10, 0, 0, 0, new byte[8], 0, 8);
        beyond[16] = 9;
        assertTrue(KitWire.checkDataTransfer(beyond, 1 << 20, 0).startsWith("R-3.1.5.8-04: DataOffset+DataLength 33"));
        assertTrue(KitWire.checkDataTransfer(KitWire.data(10, 0, 0, 1 << 20, new byte[8], 0, 8), 1 << 20, 0)
                .startsWith("R-3.1.5.8-05"));
        assertTrue(KitWire.checkDataTransfer(KitWire.data(10, 0, 0x0002, 0, null, 0, 0), 1 << 20, 0)
                .startsWith("2.2.3: Flags 2"));
    }
}
