package smbdirect.impl.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;

import smbdirect.impl.engine.SettingsException;

class ConfigurationValuesTest {

    @Test
    void methodNamesMapToPropertyNamesAsDeclarativeServicesDoes() {
        assertEquals("provider.target", ConfigurationValues.propertyName("provider_target"));
        assertEquals("webconsole.configurationFactory.nameHint",
                ConfigurationValues.propertyName("webconsole_configurationFactory_nameHint"));
        assertEquals("a_b", ConfigurationValues.propertyName("a__b"));
        assertEquals("a-b", ConfigurationValues.propertyName("a$_$b"));
        assertEquals("ab", ConfigurationValues.propertyName("a$b"));
        assertEquals("a$b", ConfigurationValues.propertyName("a$$b"));
    }

    @Test
    void valuesOfTheWrongKindAreRefusedByAttributeAndValue() {
        SettingsException e = assertThrows(SettingsException.class,
                () -> ConfigurationValues.check(TransportConfiguration.class, Map.of("keepaliveIntervalSeconds", "2m")));
        assertEquals("keepaliveIntervalSeconds", e.attribute());
        assertEquals("2m", e.value());
        assertThrows(SettingsException.class,
                () -> ConfigurationValues.check(TransportConfiguration.class, Map.of("creditRefillFraction", "a quarter")));
        assertThrows(SettingsException.class,
                () -> ConfigurationValues.check(TransportConfiguration.class, Map.of("receiveCreditMax", 1.5)));
        assertThrows(SettingsException.class,
                () -> ConfigurationValues.check(TransportConfiguration.class, Map.of("receiveCreditMax", 1L << 40)));
        assertThrows(SettingsException.class,
                () -> ConfigurationValues.check(ListenerConfiguration.class, Map.of("port", new String[] { "x" })));
    }

    @Test
    void numbersInTextTypedNumbersAndUnknownKeysPass() {
        assertDoesNotThrow(() -> ConfigurationValues.check(TransportConfiguration.class, Map.of("receiveCreditMax", " 100",
                "creditRefillFraction", "0.5", "receiveBufferBudgetMB", 4096L, "maxSendSize", 1364,
                "provider.target", "(smbdirect.provider=*)", "felix.fileinstall.filename", "file:/x")));
    }

    @Test
    void theSourceOfAConfigurationIsItsFile() {
        assertEquals(" from /srv/etc/smbdirect.transport.cfg",
                ConfigurationValues.source(Map.of("felix.fileinstall.filename", "file:/srv/etc/smbdirect.transport.cfg")));
        assertEquals("", ConfigurationValues.source(Map.of()));
    }
}
