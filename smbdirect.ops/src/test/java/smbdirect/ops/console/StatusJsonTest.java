package smbdirect.ops.console;

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

import smbdirect.api.CloseReason;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.CountersDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ListenerEventDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.SettingsDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.impl.engine.Counters;
import smbdirect.ops.health.TransportHealth;
import smbdirect.ops.monitor.Metric;

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
        p.counters = Counters.zero();
        p.counters.bytesReceived = 5_000_000_000L;
        Counters.addClose(p.counters, CloseReason.violation("R-3.1.5.8-03", "DataOffset=20"));
        t.providers = new ProviderDTO[] { p };
        ConnectionDTO c = new ConnectionDTO();
        c.id = 17;
        c.provider = "mock";
        c.maxFragmentedSendSize = 4_294_967_295L;
        c.closeReason = "peer said </script><b>";
        t.connections = new ConnectionDTO[] { c };
        t.settings = new SettingsDTO();
        t.settings.creditRefillFraction = 0.25;
        setLastNegotiationFailure(t, null);
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
        // settings by their configuration attributes' names, without the deprecated old names
        java.util.Set<String> settingNames = new java.util.HashSet<>();
        for (java.lang.reflect.Field f : SettingsDTO.class.getFields()) {
            if (!f.isAnnotationPresent(Deprecated.class)) {
                settingNames.add(smbdirect.ops.DtoFieldNames.shown(f));
            }
        }
        assertEquals(settingNames, ((Map<String, Object>) transport.get("settings")).keySet());
        assertNull(transport.get("lastNegotiationFailure"));
        Map<String, Object> counters = (Map<String, Object>) ((Map<String, Object>) ((List<Object>) transport
                .get("providers")).get(0)).get("counters");
        assertEquals(fields(CountersDTO.class), counters.keySet());
        assertEquals(5_000_000_000L, ((Number) counters.get("bytesReceived")).longValue());
        assertEquals(1L, ((Number) ((Map<String, Object>) counters.get("closedByReason")).get("PROTOCOL_VIOLATION")).longValue());
        assertEquals(1L, ((Number) ((Map<String, Object>) counters.get("violationsByRule")).get("R-3.1.5.8-03")).longValue());
        Map<String, Object> health = (Map<String, Object>) json.get("health");
        assertEquals("OK", health.get("status"));
        assertTrue(((List<Object>) health.get("findings")).contains("OK provider mock (INFINIBAND) selected"),
                health.toString());
        Map<String, Object> r = (Map<String, Object>) ((Map<String, Object>) json.get("rates")).get("mock/17");
        assertEquals(1.5e9, ((Number) r.get("bytesSentPerSecond")).doubleValue(), 1e3);
    }

    @SuppressWarnings("removal")
    private static void setLastNegotiationFailure(TransportDTO t, String text) {
        t.lastNegotiationFailure = text;
    }

    @Test
    @SuppressWarnings("unchecked")
    void listenerEventsAndNegotiationFailuresAreStructuredRecordsInTheJson() throws Exception {
        ListenerEventDTO e = new ListenerEventDTO();
        e.kind = "NEGOTIATION_FAILED";
        e.role = "PASSIVE";
        e.listener = "10.0.0.1:445";
        e.peerAddress = "10.0.0.2:50000";
        e.provider = "mock";
        e.connectionId = 9;
        e.reasonKind = "NEGOTIATION_FAILED";
        e.rule = "R-3.1.5.6-06";
        e.detail = "CreditsRequested=0: is not greater than 0";
        e.timestampMillis = 1_700_000_000_000L;
        ListenerDTO l = new ListenerDTO();
        l.address = "10.0.0.1:445";
        l.events = new ListenerEventDTO[] { e };
        TransportDTO t = new TransportDTO();
        t.listeners = new ListenerDTO[] { l };
        t.negotiationFailures = 1;
        t.negotiationFailureEvents = new ListenerEventDTO[] { e };
        setLastNegotiationFailure(t, "connection 9 NEGOTIATION_FAILED R-3.1.5.6-06: CreditsRequested=0");
        StringWriter out = new StringWriter();
        TransportHealth.Report health = TransportHealth.evaluate(t, 0, "in the last 5 minutes", x -> true, "");
        StatusJson.write(out, 1, t, health, Map.of(), Map.of(), Map.of());

        Map<String, Object> transport = (Map<String, Object>) new JSONParser(out.toString()).getParsed()
                .get("transport");
        Map<String, Object> listener = (Map<String, Object>) ((List<Object>) transport.get("listeners")).get(0);
        Map<String, Object> event = (Map<String, Object>) ((List<Object>) listener.get("events")).get(0);
        assertEquals(fields(ListenerEventDTO.class), event.keySet());
        assertEquals("R-3.1.5.6-06", event.get("rule"));
        assertEquals("10.0.0.2:50000", event.get("peerAddress"));
        assertEquals(1_700_000_000_000L, ((Number) event.get("timestampMillis")).longValue());
        Map<String, Object> failure = (Map<String, Object>) ((List<Object>) transport.get("negotiationFailureEvents"))
                .get(0);
        assertEquals("CreditsRequested=0: is not greater than 0", failure.get("detail"));
        assertEquals("connection 9 NEGOTIATION_FAILED R-3.1.5.6-06: CreditsRequested=0",
                transport.get("lastNegotiationFailure"), "the deprecated field is still there");
        assertTrue(health.findings().stream().anyMatch(f -> f.contains(
                "last: PASSIVE connection 9 peer 10.0.0.2:50000 NEGOTIATION_FAILED R-3.1.5.6-06: CreditsRequested=0")),
                health.findings().toString());
    }
}
