package smbdirect.impl.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;

import smbdirect.impl.engine.SettingsException;

class ConfigValuesTest {

    @Test
    void methodNamesMapToPropertyNamesAsDeclarativeServicesDoes() {
        assertEquals("provider.target", ConfigValues.propertyName("provider_target"));
        assertEquals("webconsole.configurationFactory.nameHint",
                ConfigValues.propertyName("webconsole_configurationFactory_nameHint"));
        assertEquals("a_b", ConfigValues.propertyName("a__b"));
        assertEquals("a-b", ConfigValues.propertyName("a$_$b"));
        assertEquals("ab", ConfigValues.propertyName("a$b"));
        assertEquals("a$b", ConfigValues.propertyName("a$$b"));
    }

    @Test
    void valuesOfTheWrongKindAreRefusedByAttributeAndValue() {
        SettingsException e = assertThrows(SettingsException.class,
                () -> ConfigValues.check(TransportConfig.class, Map.of("keepaliveIntervalSeconds", "2m")));
        assertEquals("keepaliveIntervalSeconds", e.attribute());
        assertEquals("2m", e.value());
        assertThrows(SettingsException.class,
                () -> ConfigValues.check(TransportConfig.class, Map.of("creditRefillFraction", "a quarter")));
        assertThrows(SettingsException.class,
                () -> ConfigValues.check(TransportConfig.class, Map.of("receiveCreditMax", 1.5)));
        assertThrows(SettingsException.class,
                () -> ConfigValues.check(TransportConfig.class, Map.of("receiveCreditMax", 1L << 40)));
        assertThrows(SettingsException.class,
                () -> ConfigValues.check(ListenerConfig.class, Map.of("port", new String[] { "x" })));
    }

    @Test
    void numbersInTextTypedNumbersAndUnknownKeysPass() {
        assertDoesNotThrow(() -> ConfigValues.check(TransportConfig.class, Map.of("receiveCreditMax", " 100",
                "creditRefillFraction", "0.5", "receiveBufferBudgetMB", 4096L, "maxSendSize", 1364,
                "provider.target", "(smbdirect.provider=*)", "felix.fileinstall.filename", "file:/x")));
    }

    @Test
    void theSourceOfAConfigurationIsItsFile() {
        assertEquals(" from /srv/etc/smbdirect.transport.cfg",
                ConfigValues.source(Map.of("felix.fileinstall.filename", "file:/srv/etc/smbdirect.transport.cfg")));
        assertEquals("", ConfigValues.source(Map.of()));
    }
}
