package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a monitoring system sees of the running appliance, as it sees it: the liveness and readiness
 * probes and the Prometheus endpoint over HTTP without credentials on the Web Console's port; a
 * listener whose configuration file is refused (port = 44x5) makes readiness 503 naming it, and the
 * metrics and the JSON status agree; while perf traffic runs, the counters scraped go up.
 */
class MonitoringIT {

    private static final Pattern TYPE = Pattern.compile("(?m)^# TYPE (\\S+) (counter|gauge)$");
    private static final Pattern SAMPLE = Pattern.compile("(?m)^([a-z_]+)(\\{[^}]*\\})? (\\S+)$");

    @TempDir
    Path home;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void probesAndMetricsAnswerWithoutCredentialsAndReadinessNamesARefusedListener() throws Exception {
        try (RuntimeProcess runtime = RuntimeProcess.start(home)) {
            runtime.awaitUp(Duration.ofSeconds(90));
            String password = runtime.generatedPassword();

            HttpResponse<String> live = await(runtime, "/system/health/live", r -> r.statusCode() == 200);
            assertTrue(live.body().startsWith("OK\n"), live.body());
            HttpResponse<String> ready = await(runtime, "/system/health/ready", r -> r.statusCode() == 200);
            assertTrue(ready.body().startsWith("OK\n"), ready.body());
            assertEquals(404, get(runtime, "/system/health/nothing").statusCode());

            HttpResponse<String> metrics = get(runtime, "/metrics");
            assertEquals(200, metrics.statusCode());
            assertTrue(metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"),
                    metrics.headers().toString());
            Map<String, String> types = types(metrics.body());
            assertEquals("counter", types.get("smbdirect_provider_messages_sent_total"), types.toString());
            assertEquals("counter", types.get("smbdirect_listener_connections_opened_total"), types.toString());
            assertEquals("gauge", types.get("smbdirect_health"), types.toString());
            Map<String, Double> samples = samples(metrics.body());
            assertEquals(1.0, samples.get("smbdirect_provider_selected{provider=\"mock\"}"), metrics.body());
            assertEquals(1.0, samples.get("smbdirect_listener_open{listener=\"default\",state=\"OPEN\"}"), metrics.body());
            assertEquals(1.0, samples.get("smbdirect_health{status=\"OK\"}"), metrics.body());

            // a listener file with a port that is no number: refused, and named by readiness, metrics and JSON
            Files.writeString(home.resolve("etc/smbdirect.listener-bad.cfg"),
                    "name = bad\nbindAddress = 10.0.0.1\nport = 44x5\n");
            HttpResponse<String> notReady = await(runtime, "/system/health/ready", r -> r.statusCode() == 503);
            assertTrue(notReady.body().startsWith("CRITICAL\n"), notReady.body());
            assertTrue(notReady.body().contains("CRITICAL listener bad 10.0.0.1:44x5 FAILED: configuration "
                    + "smbdirect.listener~bad from " + home.resolve("etc/smbdirect.listener-bad.cfg").toRealPath()
                    + " not applied, port=44x5 refused"), notReady.body());
            assertEquals(200, get(runtime, "/system/health/live").statusCode(), "alive all the same");
            Map<String, Double> critical = samples(get(runtime, "/metrics").body());
            assertEquals(0.0, critical.get("smbdirect_listener_open{listener=\"bad\",state=\"FAILED\"}"), critical.toString());
            assertEquals(1.0, critical.get("smbdirect_health{status=\"CRITICAL\"}"), critical.toString());
            @SuppressWarnings("unchecked")
            Map<String, Object> health = (Map<String, Object>) runtime.json(password, null).get("health");
            assertEquals("CRITICAL", health.get("status"));

            Files.delete(home.resolve("etc/smbdirect.listener-bad.cfg"));
            await(runtime, "/system/health/ready", r -> r.statusCode() == 200);
        }
    }

    @Test
    void countersScrapedDuringPerfTrafficOnlyGoUp() throws Exception {
        try (RuntimeProcess runtime = RuntimeProcess.start(home, "perf", "--duration", "20s", "--direction", "send")) {
            String sent = "smbdirect_provider_messages_sent_total{provider=\"mock\"}";
            Map<String, Double> first = samples(await(runtime, "/metrics",
                    r -> r.statusCode() == 200 && samples(r.body()).getOrDefault(sent, 0.0) > 0).body());
            Map<String, Double> before = first;
            int rising = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (rising < 3 && System.nanoTime() < deadline) {
                HttpResponse<String> r = get(runtime, "/metrics");
                if (r.statusCode() != 200) {
                    break; // the run ended
                }
                Map<String, Double> now = samples(r.body());
                for (Map.Entry<String, Double> e : before.entrySet()) {
                    if (e.getKey().contains("_total") && now.containsKey(e.getKey())) {
                        assertTrue(now.get(e.getKey()) >= e.getValue(), e.getKey() + " fell from " + e.getValue()
                                + " to " + now.get(e.getKey()));
                    }
                }
                if (now.get(sent) > before.get(sent)) {
                    rising++;
                }
                before = now;
            }
            assertTrue(rising >= 3, "messages sent rose in 3 scrapes: first " + first.get(sent) + ", last " + before.get(sent));
            // perf's server end listens on a listener of its own (named by its address)
            double received = before.entrySet().stream()
                    .filter(e -> e.getKey().startsWith("smbdirect_listener_messages_received_total{"))
                    .mapToDouble(Map.Entry::getValue).sum();
            assertTrue(received > 0, "the listener counts what its connections received: " + before);
        }
    }

    private HttpResponse<String> get(RuntimeProcess runtime, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + runtime.httpPort + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** GETs {@code path} until the answer satisfies {@code done} (bounded); fails with the last answer. */
    private HttpResponse<String> await(RuntimeProcess runtime, String path, Predicate<HttpResponse<String>> done)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = get(runtime, path);
                if (done.test(r)) {
                    return r;
                }
                last = r.statusCode() + " " + r.body();
            } catch (IOException notYet) {
                last = notYet.toString();
            }
            if (!runtime.process.isAlive()) {
                break;
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        throw new AssertionError(path + " never answered as expected; last: " + last + "\n" + runtime.output());
    }

    private static Map<String, String> types(String exposition) {
        Map<String, String> types = new HashMap<>();
        Matcher m = TYPE.matcher(exposition);
        while (m.find()) {
            types.put(m.group(1), m.group(2));
        }
        return types;
    }

    private static Map<String, Double> samples(String exposition) {
        Map<String, Double> samples = new HashMap<>();
        Matcher m = SAMPLE.matcher(exposition);
        while (m.find()) {
            samples.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
        }
        return samples;
    }
}
