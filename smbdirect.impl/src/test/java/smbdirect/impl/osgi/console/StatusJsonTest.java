package smbdirect.impl.osgi.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.felix.utils.json.JSONParser;
import org.junit.jupiter.api.Test;

import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.SettingsDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.impl.osgi.health.TransportHealth;
import smbdirect.impl.osgi.monitor.Metric;

class StatusJsonTest {

    private static Set<String> fields(Class<?> dto) {
        return Arrays.stream(dto.getFields()).filter(f -> !Modifier.isStatic(f.getModifiers())).map(Field::getName)
                .collect(Collectors.toSet());
    }

    @Test
    @SuppressWarnings("unchecked")
    void theJsonCarriesTheDtosByTheirFieldNamesAndTheHealth() throws Exception {
        TransportDTO t = new TransportDTO();
        ProviderDTO p = new ProviderDTO();
        p.name = "mock";
        p.selected = true;
        p.transportType = "INFINIBAND";
        p.capabilities = "send queue 4096 work requests";
        t.providers = new ProviderDTO[] { p };
        ConnectionDTO c = new ConnectionDTO();
        c.id = 17;
        c.provider = "mock";
        c.maxFragmentedSendSize = 4_294_967_295L;
        c.closeReason = "peer said </script><b>";
        t.connections = new ConnectionDTO[] { c };
        t.settings = new SettingsDTO();
        t.settings.creditRefillFraction = 0.25;
        t.lastNegotiationFailure = null;
        StringWriter out = new StringWriter();
        float[] rates = new float[Metric.values().length];
        rates[Metric.BYTES_SENT.ordinal()] = 1.5e9f;
        StatusJson.write(out, 1234, t, TransportHealth.evaluate(t, 0, "in the last 5 minutes", x -> true, ""),
                Map.of("mock/17", rates), Map.of(), Map.of());

        Map<String, Object> json = new JSONParser(out.toString()).getParsed();
        assertEquals(1234L, ((Number) json.get("timeMillis")).longValue());
        Map<String, Object> transport = (Map<String, Object>) json.get("transport");
        assertEquals(fields(TransportDTO.class), transport.keySet());
        Map<String, Object> connection = (Map<String, Object>) ((List<Object>) transport.get("connections")).get(0);
        assertEquals(fields(ConnectionDTO.class), connection.keySet());
        assertEquals(4_294_967_295L, ((Number) connection.get("maxFragmentedSendSize")).longValue());
        assertEquals("peer said </script><b>", connection.get("closeReason"));
        assertEquals(fields(SettingsDTO.class), ((Map<String, Object>) transport.get("settings")).keySet());
        assertNull(transport.get("lastNegotiationFailure"));
        Map<String, Object> health = (Map<String, Object>) json.get("health");
        assertEquals("OK", health.get("status"));
        assertTrue(((List<Object>) health.get("findings")).contains("OK provider mock (INFINIBAND) selected"),
                health.toString());
        Map<String, Object> r = (Map<String, Object>) ((Map<String, Object>) json.get("rates")).get("mock/17");
        assertEquals(1.5e9, ((Number) r.get("bytesSentPerSecond")).doubleValue(), 1e3);
    }
}
