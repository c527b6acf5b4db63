package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.RdmaCapabilities;

class VerbsSettingsTest {

    @Test
    void defaultsReportConservativeCapabilitiesWithoutSendWithInvalidate() {
        RdmaCapabilities c = VerbsSettings.defaults().capabilities();
        assertEquals(1024, c.maxSendWorkRequests());
        assertEquals(1, c.maxSge());
        assertEquals(16, c.maxInboundReadDepth());
        assertEquals(false, c.sendWithInvalidate());
    }

    @Test
    void invalidValuesNameTheAttributeAndTheValue() {
        VerbsSettings d = VerbsSettings.defaults();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new VerbsSettings("", "", "AUTO", 100, 80, 80, d.maxMessageSize(), 16, d.maxRegionSize(), false,
                        32, 100, 100, 100, 6, 0, 8, false));
        assertTrue(e.getMessage().contains("maxSendWorkRequests + maxReceiveWorkRequests = 160"), e.getMessage());
        IllegalArgumentException t = assertThrows(IllegalArgumentException.class,
                () -> new VerbsSettings("", "", "tcp", 100, 8, 8, 1, 16, 1, false, 32, 100, 100, 100, 6, 0, 8, false));
        assertTrue(t.getMessage().contains("transportType = TCP"), t.getMessage());
        IllegalArgumentException r = assertThrows(IllegalArgumentException.class,
                () -> new VerbsSettings("", "", "AUTO", 100, 8, 8, 1, 16, 1, false, 32, 100, 100, 100, 6, 8, 8, false));
        assertTrue(r.getMessage().contains("rnrRetryCount = 8"), r.getMessage());
    }
}
