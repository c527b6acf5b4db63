package smbdirect.ops.console;

import java.io.IOException;
import java.io.Writer;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.felix.utils.json.JSONWriter;
import org.osgi.dto.DTO;

import smbdirect.api.dto.TransportDTO;
import smbdirect.ops.DtoFieldNames;
import smbdirect.ops.health.TransportHealth;
import smbdirect.ops.monitor.Metric;
import smbdirect.ops.monitor.Series;
import smbdirect.ops.monitor.TransportMonitor;

/**
 * The JSON of {@code /system/console/smbdirect.json}: the runtime DTO exactly as the API defines it
 * (field names and values of {@code TransportDTO} and the DTOs it holds), the health evaluation, and
 * the monitor's history:
 *
 * <pre>
 * { "timeMillis": ..., "intervalMillis": 1000, "windowSeconds": 300,
 *   "health": { "status": "OK", "findings": [ "OK ...", ... ] },
 *   "transport": { "providers": [...], "listeners": [...], "connections": [...], "recentlyClosed": [...],
 *                  "negotiationFailures": 0, "lastNegotiationFailure": null,
 *                  "negotiationFailureEvents": [...], "settings": {...} },
 *   "rates": { "mock/17": { "bytesSentPerSecond": ..., ... } },
 *   "history": { "providers": { "mock": { "timeMillis": [...], "bytesSentPerSecond": [...], ... } },
 *                "connections": { "mock/17": { ... } } } }
 * </pre>
 * Connection histories are included for the keys asked for ({@code ?connection=mock/17}). Stateless.
 */
final class StatusJson {

    private StatusJson() {
    }

    static void write(Writer out, long timeMillis, TransportDTO transport, TransportHealth.Report health,
            Map<String, float[]> rates, Map<String, Series> providers, Map<String, Series> connections)
            throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("timeMillis", timeMillis);
        root.put("intervalMillis", TransportMonitor.INTERVAL_MILLIS);
        root.put("windowSeconds", TransportMonitor.SAMPLES * TransportMonitor.INTERVAL_MILLIS / 1000);
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("status", health.status().name());
        h.put("findings", health.findings());
        root.put("health", h);
        root.put("transport", toJson(transport));
        Map<String, Object> r = new LinkedHashMap<>();
        rates.forEach((k, v) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            for (Metric metric : Metric.values()) {
                m.put(metric.key(), v[metric.ordinal()]);
            }
            r.put(k, m);
        });
        root.put("rates", r);
        Map<String, Object> history = new LinkedHashMap<>();
        history.put("providers", series(providers));
        history.put("connections", series(connections));
        root.put("history", history);
        JSONWriter w = new JSONWriter(out);
        w.value(root);
        w.flush();
    }

    private static Map<String, Object> series(Map<String, Series> all) {
        Map<String, Object> m = new LinkedHashMap<>();
        all.forEach((k, s) -> {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("timeMillis", s.times());
            for (Metric metric : Metric.values()) {
                one.put(metric.key(), s.values(metric));
            }
            m.put(k, one);
        });
        return m;
    }

    /**
     * A DTO as JSON-ready maps, lists and values: every public instance field by its name; nested DTOs
     * and arrays of them recursively; {@code null} stays {@code null}.
     */
    static Object toJson(Object value) {
        if (value == null || value instanceof String || value instanceof Number || value instanceof Boolean) {
            return value;
        }
        if (value instanceof Character c) {
            return String.valueOf(c);
        }
        if (value.getClass().isArray()) {
            int n = Array.getLength(value);
            List<Object> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(toJson(Array.get(value, i)));
            }
            return list;
        }
        if (value instanceof Collection<?> c) {
            List<Object> list = new ArrayList<>(c.size());
            for (Object o : c) {
                list.add(toJson(o));
            }
            return list;
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> m = new LinkedHashMap<>();
            map.forEach((k, v) -> m.put(String.valueOf(k), toJson(v)));
            return m;
        }
        if (value instanceof DTO) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (Field f : value.getClass().getFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                try {
                    m.put(DtoFieldNames.shown(f), toJson(f.get(value)));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("public field " + f + " not readable", e);
                }
            }
            return m;
        }
        return String.valueOf(value);
    }

}
