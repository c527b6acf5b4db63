package smbdirect.impl.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;

import smbdirect.api.settings.SettingRefusedException;

/** The transport's and the listeners' own checks, as the settings guard calls them. */
class ConfigurationChecksTest {

    private static SettingRefusedException refusedByTransport(Map<String, ?> properties) {
        return assertThrows(SettingRefusedException.class, () -> new TransportConfigurationCheck().check(properties));
    }

    @Test
    void theTransportsCheckRefusesValuesInRangeThatTogetherExceedTheReceiveBufferBudget() {
        SettingRefusedException e = refusedByTransport(
                Map.of("receiveCreditMax", "65535", "maxReceiveSize", "1048576", "receiveBufferBudgetMB", "1"));
        assertEquals(false, e.attribute().isEmpty());
        assertEquals(false, e.reason().isEmpty());
        new TransportConfigurationCheck().check(Map.of("receiveCreditMax", "128"));
    }

    @Test
    void theTransportsCheckRefusesADrainTimeoutOutOfRangeAndABadProviderFilterByName() {
        SettingRefusedException drain = refusedByTransport(Map.of("drainTimeoutSeconds", "3601"));
        assertEquals("drainTimeoutSeconds", drain.attribute());
        assertEquals("3601", drain.value());
        new TransportConfigurationCheck().check(Map.of("drainTimeoutSeconds", "0"));
        SettingRefusedException filter = refusedByTransport(Map.of("provider.target", "(smbdirect.provider=verbs"));
        assertEquals("provider.target", filter.attribute());
        assertEquals(true, filter.reason().startsWith("not an LDAP filter"), filter.reason());
    }

    @Test
    void theListenersCheckRefusesAPortThatIsNoNumberAndAnUnknownHostByName() {
        ListenerConfigurationCheck check = new ListenerConfigurationCheck();
        SettingRefusedException port = assertThrows(SettingRefusedException.class, () -> check.check(Map.of("port", "44x5")));
        assertEquals("port", port.attribute());
        assertEquals("44x5", port.value());
        SettingRefusedException host = assertThrows(SettingRefusedException.class,
                () -> check.check(Map.of("bindAddress", "no-such-host.invalid")));
        assertEquals("bindAddress", host.attribute());
        assertEquals("unknown host", host.reason());
        check.check(Map.of("bindAddress", "127.0.0.1", "port", "5445"));
    }
}
