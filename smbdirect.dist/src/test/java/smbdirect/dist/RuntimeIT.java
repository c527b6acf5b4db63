package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exported runtime jar as a user runs it: headless service, Web Console binding, batch perf. */
class RuntimeIT {

    @TempDir
    Path dir;

    @Test
    void withoutTerminalRunsUntilSigtermThenExitsZero() throws Exception {
        try (RuntimeProcess runtime = RuntimeProcess.start(dir)) {
            runtime.awaitUp(Duration.ofSeconds(60));
            runtime.awaitOutput("  Stop:         SIGTERM or SIGINT (no terminal attached: no interactive shell)",
                    Duration.ofSeconds(10));
            assertFalse(runtime.output().contains("smbd:"), "no shell, no shell commands offered:\n" + runtime.output());
            assertTrue(runtime.output().contains("default 10.0.0.1:445 on mock OPEN"), runtime.output());
            TimeUnit.SECONDS.sleep(2);
            assertTrue(runtime.process.isAlive(), "runtime stopped on its own without a terminal:\n" + runtime.output());
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
            assertTrue(runtime.output().contains("stopping the runtime (SIGTERM)"), runtime.output());
        }
    }

    /**
     * From the moment the Web Console answers, also before Config Admin has handed it the password
     * kept in etc/: the Felix default password admin is never accepted (Felix's own default before
     * its configuration arrives). Asked as fast as one client asks, from the start until the banner,
     * at a first start and at a restart.
     */
    @Test
    void theFelixDefaultPasswordIsNeverAcceptedWhileTheRuntimeStarts() throws Exception {
        for (String start : new String[] { "first start", "restart" }) {
            try (RuntimeProcess runtime = RuntimeProcess.start(dir)) {
                java.util.Map<String, Integer> answers = new java.util.TreeMap<>();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!runtime.output().contains("\n  Stop:         ") && System.nanoTime() < deadline) {
                    String answer;
                    try {
                        answer = String.valueOf(runtime.get("/bundles", "admin").statusCode());
                    } catch (java.io.IOException notListening) {
                        answer = "no connection";
                    }
                    answers.merge(answer, 1, Integer::sum);
                }
                runtime.awaitUp(Duration.ofSeconds(10));
                assertFalse(answers.containsKey("200"), start + ": admin accepted; answers " + answers);
                assertTrue(answers.getOrDefault("401", 0) > 0, start + ": the Web Console never answered before "
                        + "the banner, so nothing was checked; answers " + answers);
                assertEquals(401, runtime.get("/bundles", "admin").statusCode());
                assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
            }
        }
    }

    @Test
    void withItsInputClosedKeepsRunningQuietlyUntilSigtermThenExitsZero() throws Exception {
        try (RuntimeProcess runtime = RuntimeProcess.startWithInputClosed(dir)) {
            runtime.awaitUp(Duration.ofSeconds(60));
            runtime.json(runtime.generatedPassword(), null); // serving
            assertTrue(runtime.process.isAlive(), "runtime stopped when its input was closed:\n" + runtime.output());
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
            String out = runtime.output();
            assertTrue(out.contains("stopping the runtime (SIGTERM)"), out);
            assertFalse(out.contains("Interrupted"), out);
            assertFalse(out.contains(" WARN ") || out.contains(" ERROR "), out);
        }
    }

    @Test
    void webConsoleAnswersOnLoopbackWithTheGeneratedPasswordOnly() throws Exception {
        try (RuntimeProcess runtime = RuntimeProcess.start(dir)) {
            runtime.awaitUp(Duration.ofSeconds(60));
            String password = runtime.generatedPassword();
            HttpClient http = HttpClient.newHttpClient();
            URI page = URI.create("http://127.0.0.1:" + runtime.httpPort + "/system/console/smbdirect");
            HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(page).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(401, anonymous.statusCode());
            HttpResponse<String> felixDefault = http.send(HttpRequest.newBuilder(page)
                    .header("Authorization", basic("admin", "admin")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(401, felixDefault.statusCode(), "the Felix default password admin/admin is not accepted");
            String stored = Files.readString(dir.resolve("etc/org.apache.felix.webconsole.internal.servlet.OsgiManager.cfg"));
            assertTrue(stored.matches("(?s).*password = \\{sha-256\\}[0-9a-f]{16}-1000-\\S+=\\n.*"), stored);
            assertFalse(stored.contains(password), "only the hash is stored");
            String basic = basic("admin", password);
            HttpResponse<String> ok = http.send(HttpRequest.newBuilder(page).header("Authorization", basic).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, ok.statusCode());
            assertTrue(ok.body().contains("id='smbd-listeners'"), ok.body());
            HttpResponse<String> json = http.send(HttpRequest.newBuilder(URI.create(page + ".json"))
                    .header("Authorization", basic).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, json.statusCode());
            assertEquals("application/json;charset=utf-8", json.headers().firstValue("Content-Type").orElse("")
                    .toLowerCase().replace(" ", ""));
            assertTrue(json.body().contains("{\"name\":\"default\",\"address\":\"10.0.0.1:445\",\"provider\":\"mock\","
                    + "\"state\":\"OPEN\""), json.body());
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
        }
    }

    @Test
    void aLaterStartSaysTheGeneratedPasswordIsStillInItsFileUntilChanged() throws Exception {
        String password;
        try (RuntimeProcess first = RuntimeProcess.start(dir)) {
            first.awaitUp(Duration.ofSeconds(60));
            password = first.generatedPassword();
            assertEquals(0, first.terminate(Duration.ofSeconds(30)), first.output());
        }
        try (RuntimeProcess again = RuntimeProcess.start(dir)) {
            again.awaitUp(Duration.ofSeconds(60));
            String out = again.output();
            assertTrue(out.contains("Credentials:  user admin, password as configured (hash in"
                    + " etc/org.apache.felix.webconsole.internal.servlet.OsgiManager.cfg); the one generated at the first"
                    + " start is in data/webconsole-password until changed"), out);
            assertFalse(out.contains(password), out);
            assertEquals(200, again.get("/smbdirect", password).statusCode());
            assertEquals(0, again.terminate(Duration.ofSeconds(30)), again.output());
        }
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void batchPerfRunsTheWorkloadAndExitsZero() throws Exception {
        try (RuntimeProcess runtime = RuntimeProcess.start(dir, "perf", "--count", "2000", "--size", "4096")) {
            assertTrue(runtime.process.waitFor(120, TimeUnit.SECONDS), "perf did not finish:\n" + runtime.output());
            String out = runtime.output();
            assertEquals(0, runtime.process.exitValue(), out);
            assertTrue(out.contains("server confirmed 2000 messages, 8192000 bytes"), out);
            assertTrue(out.contains("throughput"), out);
            assertTrue(out.contains("latency p50"), out);
        }
    }

    @Test
    void batchPerfWritesAWiresharkTraceOfTheRun() throws Exception {
        Path pcap = dir.resolve("run.pcap");
        try (RuntimeProcess runtime = RuntimeProcess.start(dir, "perf", "--count", "100", "--trace", pcap.toString(),
                "--trace-limit", "40")) {
            assertTrue(runtime.process.waitFor(120, TimeUnit.SECONDS), "perf did not finish:\n" + runtime.output());
            String out = runtime.output();
            assertEquals(0, runtime.process.exitValue(), out);
            assertTrue(out.contains("trace " + pcap.toAbsolutePath() + ": 40 messages written"), out);
            byte[] bytes = Files.readAllBytes(pcap);
            assertEquals(0xD4, bytes[0] & 0xFF, "pcap magic, little-endian");
            assertEquals(0xA1, bytes[3] & 0xFF, "pcap magic, little-endian");
            assertEquals(252, bytes[20] & 0xFF, "linktype 252 (exported PDU)");
            assertTrue(bytes.length > 24 + 40 * (16 + 44 + 20), "40 records of at least 20-byte messages");
        }
    }

    @Test
    void batchPerfWithBadOptionExitsTwoNamingTheOption() throws Exception {
        try (RuntimeProcess runtime = RuntimeProcess.start(dir, "perf", "--size", "10")) {
            assertTrue(runtime.process.waitFor(120, TimeUnit.SECONDS), "perf did not finish:\n" + runtime.output());
            assertEquals(2, runtime.process.exitValue(), runtime.output());
            assertTrue(runtime.output().contains("--size must be at least 64 bytes, not 10"), runtime.output());
        }
    }
}
