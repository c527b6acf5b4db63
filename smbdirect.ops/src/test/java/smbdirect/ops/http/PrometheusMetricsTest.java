package smbdirect.ops.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.dto.CountersDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.impl.engine.Counters;
import smbdirect.ops.health.TransportHealth;

/**
 * The Prometheus exposition read back as Prometheus reads it: every sample belongs to a family
 * announced by a TYPE line, counters end in {@code _total}, the labels name the provider, the
 * listener, the close reason and the rule, and the values are the DTO's.
 */
class PrometheusMetricsTest {

    private static final Pattern TYPE = Pattern.compile("# TYPE (\\S+) (counter|gauge)");
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    @Test
    void countersLabelsAndTypesAreWhatPrometheusParses() throws Exception {
        TransportDTO t = new TransportDTO();
        ProviderDTO mock = new ProviderDTO();
        mock.name = "mock";
        mock.selected = true;
        mock.connections = 2;
        mock.counters = Counters.zero();
        mock.counters.connectionsOpened = 5;
        mock.counters.messagesSent = 1234;
        mock.counters.bytesReceived = 987654321L;
        Counters.addClose(mock.counters, CloseReason.of(CloseReason.Kind.PEER_DISCONNECT, "bye"));
        Counters.addClose(mock.counters, CloseReason.violation("R-3.1.5.8-03", "DataOffset=20"));
        ProviderDTO iwarp = new ProviderDTO();
        iwarp.name = "iwarp";
        iwarp.counters = Counters.zero();
        iwarp.counters.rdmaBytes = 4096;
        t.providers = new ProviderDTO[] {mock, iwarp};
        ListenerDTO named = new ListenerDTO();
        named.name = "default";
        named.address = "10.0.0.1:445";
        named.state = "OPEN";
        named.accepted = 5;
        named.counters = Counters.copy(mock.counters);
        ListenerDTO unnamed = new ListenerDTO();
        unnamed.address = "10.0.0.1:4455";
        unnamed.state = "FAILED";
        unnamed.counters = Counters.zero();
        t.listeners = new ListenerDTO[] {named, unnamed};
        t.negotiationFailures = 3;
        TransportHealth.Report health = new TransportHealth.Report(TransportHealth.Status.CRITICAL,
                List.of("CRITICAL listener 10.0.0.1:4455 FAILED"));

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusMetrics.write(out, t, health);
        Map<String, String> types = new HashMap<>();
        Map<String, Double> samples = new LinkedHashMap<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            Matcher type = TYPE.matcher(line);
            if (type.matches()) {
                types.put(type.group(1), type.group(2));
                continue;
            }
            if (line.startsWith("#") || line.isEmpty()) {
                continue;
            }
            Matcher s = SAMPLE.matcher(line);
            assertTrue(s.matches(), "not a sample line: " + line);
            String family = familyOf(s.group(1), types);
            assertTrue(types.containsKey(family), "no TYPE line before " + line);
            if ("counter".equals(types.get(family))) {
                assertTrue(s.group(1).endsWith("_total"), "counter sample without _total: " + line);
            }
            samples.put(s.group(1) + canonical(s.group(3)), Double.parseDouble(s.group(4)));
        }

        assertEquals("counter", types.get("smbdirect_provider_messages_sent_total"));
        assertEquals(1234.0, samples.get("smbdirect_provider_messages_sent_total{provider=mock}"));
        assertEquals(987654321.0, samples.get("smbdirect_provider_received_bytes_total{provider=mock}"));
        assertEquals(4096.0, samples.get("smbdirect_provider_rdma_bytes_total{provider=iwarp}"));
        assertEquals(5.0, samples.get("smbdirect_provider_connections_opened_total{provider=mock}"));
        assertEquals(1.0, samples.get("smbdirect_provider_connections_closed_total{provider=mock,reason=PEER_DISCONNECT}"));
        assertEquals(1.0, samples.get("smbdirect_provider_connections_closed_total{provider=mock,reason=PROTOCOL_VIOLATION}"));
        assertEquals(1.0, samples.get("smbdirect_provider_protocol_violations_total{provider=mock,rule=R-3.1.5.8-03}"));
        assertEquals(1234.0, samples.get("smbdirect_listener_messages_sent_total{listener=default}"));
        assertEquals(0.0, samples.get("smbdirect_listener_messages_sent_total{listener=10.0.0.1:4455}"));
        assertEquals(5.0, samples.get("smbdirect_listener_accepted_total{listener=default}"));
        assertEquals("gauge", types.get("smbdirect_provider_connections"));
        assertEquals(2.0, samples.get("smbdirect_provider_connections{provider=mock}"));
        assertEquals(1.0, samples.get("smbdirect_provider_selected{provider=mock}"));
        assertEquals(0.0, samples.get("smbdirect_listener_open{listener=10.0.0.1:4455,state=FAILED}"));
        assertEquals(1.0, samples.get("smbdirect_listener_open{listener=default,state=OPEN}"));
        assertEquals(3.0, samples.get("smbdirect_negotiation_failures_total"));
        assertEquals(1.0, samples.get("smbdirect_health{status=CRITICAL}"));
        assertEquals(0.0, samples.get("smbdirect_health{status=OK}"));
    }

    /** The family a sample belongs to: its own name when a TYPE line announced it, else its name without {@code _total}. */
    private static String familyOf(String sample, Map<String, String> types) {
        if (types.containsKey(sample)) {
            return sample;
        }
        return sample.endsWith("_total") ? sample.substring(0, sample.length() - "_total".length()) : sample;
    }

    /** Labels as {@code {a=x,b=y}} in name order, or empty. */
    private static String canonical(String labels) {
        if (labels == null || labels.isEmpty()) {
            return "";
        }
        Map<String, String> sorted = new java.util.TreeMap<>();
        Matcher m = LABEL.matcher(labels);
        while (m.find()) {
            sorted.put(m.group(1), m.group(2));
        }
        StringBuilder b = new StringBuilder("{");
        sorted.forEach((k, v) -> b.append(b.length() > 1 ? "," : "").append(k).append('=').append(v));
        return b.append('}').toString();
    }

    @Test
    void aProviderWithoutCountersIsExposedAsZero() throws Exception {
        TransportDTO t = new TransportDTO();
        ProviderDTO p = new ProviderDTO();
        p.name = "old";
        t.providers = new ProviderDTO[] {p};
        CountersDTO none = null;
        p.counters = none;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusMetrics.write(out, t, new TransportHealth.Report(TransportHealth.Status.OK, List.of()));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("smbdirect_provider_messages_sent_total{provider=\"old\"} 0"),
                out.toString(StandardCharsets.UTF_8));
    }
}
