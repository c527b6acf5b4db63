package smbdirect.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.RdmaCapabilities;

class CapabilitiesTextTest {

    @Test
    void capabilitiesReadAsWordsWithUnits() {
        assertEquals("send queue 4096 work requests, receive queue 4096 work requests, 16 scatter/gather entries,"
                + " 256 B inline, messages up to 1 GiB, RDMA Reads 16 in (IRD) / 16 out (ORD), registrations up to 4 GiB,"
                + " Send with Invalidate",
                CapabilitiesText.describe(new RdmaCapabilities(4096, 4096, 16, 256, 1 << 30, 16, 16, 4L << 30, true)));
        assertEquals("send queue 64 work requests, receive queue 32 work requests, 1 scatter/gather entry, 0 B inline,"
                + " messages up to 2,147,483,647 B, RDMA Reads 1 in (IRD) / 2 out (ORD), registrations up to"
                + " 9,223,372,036,854,775,807 B, no Send with Invalidate",
                CapabilitiesText.describe(new RdmaCapabilities(64, 32, 1, 0, Integer.MAX_VALUE, 1, 2, Long.MAX_VALUE, false)));
        assertEquals("(not reported)", CapabilitiesText.describe(null));
    }

    @Test
    void aDeviceThatPostsSendWithInvalidateButIsNotInvalidatedByAPeersSaysSo() {
        String text = CapabilitiesText.describe(new RdmaCapabilities(64, 64, 1, 0, 1 << 20, 1, 1, 1 << 20, true, false));
        assertEquals(true, text.endsWith(", Send with Invalidate (posting only: a peer's does not invalidate our memory)"),
                text);
    }

    @Test
    void bytesUseBinaryUnitsOnlyWhenWhole() {
        assertEquals("1,364 B", CapabilitiesText.bytes(1364));
        assertEquals("8 KiB", CapabilitiesText.bytes(8192));
        assertEquals("1 MiB", CapabilitiesText.bytes(1 << 20));
        assertEquals("1,536 KiB", CapabilitiesText.bytes(1536 * 1024));
        assertEquals("0 B", CapabilitiesText.bytes(0));
    }
}
