package smbdirect.ops.console;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import smbdirect.api.dto.SettingsDTO;
import smbdirect.api.settings.ComponentProperties;
import smbdirect.impl.config.TransportConfiguration;
import smbdirect.impl.config.TransportConfigurations;
import smbdirect.impl.engine.TransportSettings;

/**
 * One name per setting: the JSON status shows every attribute of {@code smbdirect.transport} under
 * the attribute's name, in its unit, and nothing else.
 */
class SettingNamesTest {

    private static TreeSet<String> attributes() {
        TreeSet<String> names = new TreeSet<>();
        for (Method m : TransportConfiguration.class.getDeclaredMethods()) {
            names.add(ComponentProperties.propertyName(m.getName()));
        }
        return names;
    }

    @Test
    void theJsonSettingsAreTheConfigurationAttributesByName() {
        TransportSettings s = TransportConfigurations.fromProperties(Map.of("keepaliveIntervalSeconds", "30",
                "receiveBufferBudgetMB", "64", "inboundReadDepth", "4"));
        SettingsDTO dto = s.toDTO();
        dto.provider_target = "(smbdirect.provider=mock)";
        @SuppressWarnings("unchecked")
        Map<String, Object> json = new TreeMap<>((Map<String, Object>) StatusJson.toJson(dto));
        assertEquals(attributes(), new TreeSet<>(json.keySet()));
        assertEquals(30L, json.get("keepaliveIntervalSeconds"));
        assertEquals(64L, json.get("receiveBufferBudgetMB"));
        assertEquals(4, json.get("inboundReadDepth"));
        assertEquals("(smbdirect.provider=mock)", json.get("provider.target"));
    }
}
