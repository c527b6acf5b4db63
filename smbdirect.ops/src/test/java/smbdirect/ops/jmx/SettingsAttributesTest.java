package smbdirect.ops.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import smbdirect.api.dto.SettingsDTO;
import smbdirect.api.settings.ComponentProperties;
import smbdirect.impl.config.TransportConfiguration;

/** One name per setting: the transport MBean's settings attributes are the configuration's attributes. */
class SettingsAttributesTest {

    @Test
    void theSettingsAttributesAreTheConfigurationAttributesByName() {
        TreeSet<String> expected = new TreeSet<>();
        for (Method m : TransportConfiguration.class.getDeclaredMethods()) {
            expected.add(ComponentProperties.propertyName(m.getName()));
        }
        TreeSet<String> shown = new TreeSet<>();
        for (DtoMBean.Attr a : DtoMBean.fieldsOf(SettingsDTO.class, "", v -> v)) {
            shown.add(a.name());
        }
        assertEquals(expected, shown);
    }
}
