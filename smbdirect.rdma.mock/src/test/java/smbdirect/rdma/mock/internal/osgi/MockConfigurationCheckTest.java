package smbdirect.rdma.mock.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;

import smbdirect.api.settings.SettingRefusedException;

/** What a configured mock provider refuses, as the settings guard learns it. */
class MockConfigurationCheckTest {

    private final MockConfigurationCheck check = new MockConfigurationCheck();

    @Test
    void aCapabilityBelowOneIsRefusedWithItsAttributeValueAndRule() {
        SettingRefusedException e = assertThrows(SettingRefusedException.class,
                () -> check.check(Map.of("maxInboundReadDepth", "0")));
        assertEquals("maxInboundReadDepth", e.attribute());
        assertEquals("0", e.value());
        assertEquals("must be positive", e.reason());
        assertEquals("maxInlineData", assertThrows(SettingRefusedException.class,
                () -> check.check(Map.of("maxInlineData", -1))).attribute());
        assertEquals("completionThreads", assertThrows(SettingRefusedException.class,
                () -> check.check(Map.of("completionThreads", "0"))).attribute());
    }

    @Test
    void aTransportTypeOrNumberThatIsNoneIsRefusedByName() {
        assertEquals("smbdirect.provider.transport", assertThrows(SettingRefusedException.class,
                () -> check.check(Map.of("smbdirect.provider.transport", "ETHERNET"))).attribute());
        assertEquals("maxSge", assertThrows(SettingRefusedException.class,
                () -> check.check(Map.of("maxSge", "16x"))).attribute());
    }

    @Test
    void aGoodConfigurationPasses() {
        check.check(Map.of());
        check.check(Map.of("smbdirect.provider", "mock2", "smbdirect.provider.transport", "IWARP", "maxSge", 4,
                "maxRegionSize", "4096", "sendWithInvalidate", "false"));
    }
}
