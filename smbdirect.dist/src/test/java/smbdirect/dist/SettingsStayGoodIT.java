package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.dist.RuntimeProcess.settings;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.dist.etc.ConfigurationFile;
import smbdirect.dist.etc.ConsolePassword;

/**
 * The last good settings stay, also on disk and across a restart, as an operator sees it: a value
 * the runtime refuses is refused by the Web Console's configuration form itself (400 with the
 * reason, nothing saved); the same for the Web Console password {@code admin}. Edited by hand into
 * a file under {@code etc/} of the running runtime, it is put back at once (in force, in the file)
 * and health says so. After SIGTERM, a file edited by hand with refused values, a misspelt key and a
 * misspelt file name, the Web Console password {@code admin} and a listener's port that is no
 * number: the runtime starts on the last good settings it kept (not the defaults; the last good
 * password; the listener on its last good port), puts them back into the files, and health (WARN)
 * names the file, the key, the value, the reason and the nearest known names.
 */
class SettingsStayGoodIT {

    private static final Path TRANSPORT_FILE = Path.of("etc", "smbdirect.transport.cfg");

    @TempDir
    Path home;

    @SuppressWarnings("unchecked")
    private static Map<String, Object> health(Map<String, Object> json) {
        return (Map<String, Object>) json.get("health");
    }

    @SuppressWarnings("unchecked")
    private static List<String> findings(Map<String, Object> json) {
        return (List<String>) health(json).get("findings");
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> listeners(Map<String, Object> json) {
        return (List<Map<String, Object>>) ((Map<String, Object>) json.get("transport")).get("listeners");
    }

    private static int receiveCreditMax(Map<String, Object> json) {
        return ((Number) settings(json).get("receiveCreditMax")).intValue();
    }

    private static Predicate<Map<String, Object>> finding(String... parts) {
        return j -> "WARN".equals(health(j).get("status")) && findings(j).stream()
                .anyMatch(f -> f.startsWith("WARN settings: ") && List.of(parts).stream().allMatch(f::contains));
    }

    /**
     * Waits (bounded) until smbdirect.json satisfies {@code condition}; answers other than 200 (the
     * Web Console restarting after a change of its own configuration) are waited out.
     */
    private static void awaitJson(RuntimeProcess runtime, String password, Predicate<Map<String, Object>> condition,
            String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String last = "";
        while (System.nanoTime() < deadline) {
            java.net.http.HttpResponse<String> r = runtime.get("/smbdirect.json", password);
            last = r.statusCode() + " " + r.body();
            if (r.statusCode() == 200 && condition.test(new org.apache.felix.utils.json.JSONParser(r.body()).getParsed())) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        throw new AssertionError(what + " never seen in smbdirect.json: " + last + "\n" + runtime.output());
    }

    private String awaitFile(Path file, Predicate<String> condition, String what) throws Exception {
        return RuntimeProcess.awaitFile(home, file, condition, what);
    }

    @Test
    void aRefusedSettingIsPutBackInForceAndInEtcAndARestartStartsFromTheLastGoodSettingsItKept() throws Exception {
        String password;
        Path transport = home.resolve(TRANSPORT_FILE);
        Path consoleFile = home.resolve("etc").resolve(ConsolePassword.PID + ".cfg");
        try (RuntimeProcess runtime = RuntimeProcess.start(home)) {
            runtime.awaitUp(Duration.ofSeconds(60));
            password = runtime.generatedPassword();

            runtime.postConfiguration(password, "smbdirect.transport", Map.of("receiveCreditMax", "128"));
            awaitJson(runtime, password, j -> receiveCreditMax(j) == 128, "receiveCreditMax 128");
            awaitFile(TRANSPORT_FILE, t -> t.contains("\nreceiveCreditMax = 128\n"), "receiveCreditMax 128 in etc/");

            // the Web Console's form refuses it where it is made: 400 with the reason, which the form
            // shows; nothing is saved, so the file keeps the last good value
            HttpResponse<String> refused = runtime.postForm(password, "smbdirect.transport", Map.of("receiveCreditMax", "0"));
            assertEquals(400, refused.statusCode(), refused.body());
            assertTrue(RuntimeProcess.unescaped(refused.body()).contains("Not saved: receiveCreditMax = 0 refused ("),
                    refused.body());
            assertEquals(128, receiveCreditMax(runtime.json(password, null)));
            assertTrue(Files.readString(transport, StandardCharsets.ISO_8859_1).contains("\nreceiveCreditMax = 128\n"));
            // the Felix default password likewise (the value is never shown)
            refused = runtime.postForm(password, ConsolePassword.PID, Map.of("password", "admin"));
            assertEquals(400, refused.statusCode(), refused.body());
            assertTrue(refused.body().contains("password = (hidden) refused"), refused.body());
            assertTrue(!refused.body().contains("admin refused"), refused.body());

            // edited by hand in etc/ while running (or by config:property-set): put back at once, and health says so
            Files.writeString(transport, Files.readString(transport, StandardCharsets.ISO_8859_1)
                    .replace("\nreceiveCreditMax = 128\n", "\nreceiveCreditMax = 0\n"), StandardCharsets.ISO_8859_1);
            awaitJson(runtime, password, finding(transport.toString(), "receiveCreditMax = 0 refused",
                    "the last good settings were put back"), "the refused receiveCreditMax = 0 in health");
            assertEquals(128, receiveCreditMax(runtime.json(password, null)));
            awaitFile(TRANSPORT_FILE, t -> t.contains("\nreceiveCreditMax = 128\n"), "the last good receiveCreditMax");
            Files.writeString(consoleFile, Files.readString(consoleFile, StandardCharsets.ISO_8859_1)
                    .replaceFirst("(?m)^password = .*$", "password = admin"), StandardCharsets.ISO_8859_1);
            awaitJson(runtime, password, finding(ConsolePassword.PID, "password = (hidden) refused"),
                    "the refused password in health (the Web Console answers with the password in force)");
            // putting the good password back makes the Web Console register its servlet again: between
            // the two registrations /smbdirect is not there (404), or there while its security is not
            // (403, the HTTP service's answer when the context refuses without a challenge); once both
            // are, admin is refused (401)
            int status = runtime.get("/smbdirect", "admin").statusCode();
            for (long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    (status == 404 || status == 403) && System.nanoTime() < end; ) {
                TimeUnit.MILLISECONDS.sleep(200);
                status = runtime.get("/smbdirect", "admin").statusCode();
            }
            assertEquals(401, status, "admin is no password");
            // the Web Console has the last good password from the guard at once; the file gets it back
            // when Config Admin's event of the put-back reaches the writer of etc/, a moment later
            awaitFile(home.relativize(consoleFile), t -> RuntimeProcess.parseConfiguration(t).get("password") instanceof String s
                    && ConsolePassword.matches(s, password), "the last good password's hash");

            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
        }

        // edited by hand while stopped: refused values, a misspelt key, a misspelt file name
        String edited = Files.readString(transport, StandardCharsets.ISO_8859_1)
                .replace("\nreceiveCreditMax = 128\n", "\nreceiveCreditMax = 0\n")
                .replace("\nsendCreditTarget = 255\n", "\nsendCreditTarget = 25x\n") + "recieveCreditMax = 64\n";
        Files.writeString(transport, edited, StandardCharsets.ISO_8859_1);
        Files.writeString(home.resolve("etc/smbdirect.transprt.cfg"), "receiveCreditMax = 64\n");
        // and the Felix default password, and a listener's port that is no number
        Files.writeString(consoleFile, Files.readString(consoleFile, StandardCharsets.ISO_8859_1)
                .replaceFirst("(?m)^password = .*$", "password = admin"), StandardCharsets.ISO_8859_1);
        Path listener = home.resolve("etc/smbdirect.listener-default.cfg");
        Files.writeString(listener, Files.readString(listener).replace("\nport = 445\n", "\nport = 44x5\n"));

        try (RuntimeProcess again = RuntimeProcess.start(home)) {
            again.awaitUp(Duration.ofSeconds(60));
            Map<String, Object> json = again.json(password, null);
            assertEquals(128, receiveCreditMax(json), "the last good settings, not the defaults: " + json);
            awaitJson(again, password, finding(transport.toString(), "receiveCreditMax = 0 refused",
                    "sendCreditTarget = 25x refused (not a whole number)",
                    "recieveCreditMax = 64 ignored (no such setting; did you mean receiveCreditMax?)"),
                    "the hand-edited file's refused values in health");
            awaitJson(again, password, finding("smbdirect.transprt.cfg", "did you mean smbdirect.transport?"),
                    "the misspelt file name in health");
            String restored = awaitFile(TRANSPORT_FILE, t -> t.contains("\nreceiveCreditMax = 128\n"),
                    "the last good settings put back");
            assertTrue(restored.contains("\nsendCreditTarget = 255\n"), restored);
            // the password in force is the last good one, admin none, and the file keeps its hash
            awaitJson(again, password, finding(ConsolePassword.PID, "password = (hidden) refused"),
                    "the hand-edited password in health");
            assertEquals(401, again.get("/smbdirect", "admin").statusCode(), "admin is no password after the restart");
            assertTrue(ConsolePassword.matches(String.valueOf(ConfigurationFile.read(consoleFile).get("password")), password),
                    "etc/ keeps the last good password's hash: " + Files.readString(consoleFile));
            // the listener opened on its last good port, which is put back into its file
            awaitJson(again, password, finding("smbdirect.listener-default.cfg", "port = 44x5 refused"),
                    "the hand-edited listener port in health");
            awaitFile(Path.of("etc/smbdirect.listener-default.cfg"), t -> t.contains("\nport = 445\n"), "port 445 put back");
            awaitJson(again, password, j -> listeners(j).stream().anyMatch(l -> "default".equals(l.get("name"))
                    && String.valueOf(l.get("address")).endsWith(":445") && "OPEN".equals(l.get("state"))),
                    "the default listener open on port 445");

            // the same edit while running: the listener stays open on its last good port
            Files.writeString(listener, Files.readString(listener).replace("\nport = 445\n", "\nport = 44y5\n"));
            awaitJson(again, password, finding("smbdirect.listener-default.cfg", "port = 44y5 refused"),
                    "the refused port in health");
            awaitFile(Path.of("etc/smbdirect.listener-default.cfg"), t -> t.contains("\nport = 445\n"), "port 445 put back");
            assertTrue(again.output().contains("port = 44y5 refused"), again.output());
            assertEquals(0, again.terminate(Duration.ofSeconds(30)), again.output());
        }
    }
}
