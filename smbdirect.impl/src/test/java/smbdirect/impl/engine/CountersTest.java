package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.dto.CountersDTO;

class CountersTest {

    @Test
    void closesAreCountedByReasonAndViolationsByTheirRule() {
        CountersDTO c = Counters.zero();
        Counters.addClose(c, CloseReason.of(CloseReason.Kind.PEER_DISCONNECT, "gone"));
        Counters.addClose(c, CloseReason.violation("R-3.1.5.8-03", "DataOffset=20: is not a multiple of 8"));
        Counters.addClose(c, CloseReason.violation("R-3.1.5.8-03", "DataOffset=28: is not a multiple of 8"));
        Counters.addClose(c, CloseReason.of(CloseReason.Kind.NEGOTIATION_FAILED, "no rule given"));
        Counters.addClose(c, null);

        assertEquals(5, c.connectionsClosed);
        assertEquals(Map.of("PEER_DISCONNECT", 1L, "PROTOCOL_VIOLATION", 2L, "NEGOTIATION_FAILED", 1L, "LOCAL_CLOSE", 1L),
                c.closedByReason);
        assertEquals(3, c.protocolViolations);
        assertEquals(Map.of("R-3.1.5.8-03", 2L, Counters.NO_RULE, 1L), c.violationsByRule);
    }

    @Test
    void addingSumsEveryCounterAndMergesTheMaps() {
        CountersDTO a = Counters.zero();
        a.messagesSent = 3;
        a.bytesReceived = 100;
        Counters.addClose(a, CloseReason.violation("A-30", "x"));
        CountersDTO b = Counters.copy(a);
        b.rdmaBytes = 7;
        Counters.addClose(b, CloseReason.violation("A-30", "y"));

        Counters.add(a, b);

        assertEquals(6, a.messagesSent);
        assertEquals(200, a.bytesReceived);
        assertEquals(7, a.rdmaBytes);
        assertEquals(3, a.connectionsClosed);
        assertEquals(Map.of("A-30", 3L), a.violationsByRule);
    }
}
