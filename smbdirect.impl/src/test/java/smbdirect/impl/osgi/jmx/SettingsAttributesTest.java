package smbdirect.impl.osgi.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import smbdirect.api.dto.SettingsDTO;
import smbdirect.impl.config.ConfigValues;
import smbdirect.impl.config.TransportConfig;

/** One name per setting: the transport MBean's settings attributes are the configuration's attributes. */
class SettingsAttributesTest {

    @Test
    void theSettingsAttributesAreTheConfigurationAttributesByName() {
        TreeSet<String> expected = new TreeSet<>();
        for (Method m : TransportConfig.class.getDeclaredMethods()) {
            expected.add(ConfigValues.propertyName(m.getName()));
        }
        TreeSet<String> shown = new TreeSet<>();
        for (DtoMBean.Attr a : DtoMBean.fieldsOf(SettingsDTO.class, "", v -> v)) {
            shown.add(a.name());
        }
        assertEquals(expected, shown);
    }
}
