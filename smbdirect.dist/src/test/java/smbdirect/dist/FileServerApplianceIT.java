package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference file server in the appliance runtime, as an operator runs it: installed but off
 * (the banner and the log say nothing of it) until {@code etc/smbdirect.example.fileserver.cfg}
 * exists; then one INFO line says what is served where and its listener shows on the status page;
 * a bad value is refused by the settings guard, naming the key, before the server sees it, the last
 * good settings put back into the file while it keeps serving; deleting the file closes it. A start
 * over a file edited by hand with such a value serves on the last good settings from the start.
 */
class FileServerApplianceIT {

    @TempDir
    Path home;

    @TempDir
    Path share;

    @SuppressWarnings("unchecked")
    private static Map<String, Object> listenerAt(Map<String, Object> json, String address) {
        Map<String, Object> transport = (Map<String, Object>) json.get("transport");
        return ((List<Map<String, Object>>) transport.get("listeners")).stream()
                .filter(l -> address.equals(l.get("address"))).findFirst().orElse(null);
    }

    /** The log lines (not the banner) that mention {@code text}. */
    private static List<String> linesAbout(RuntimeProcess runtime, String text) throws Exception {
        return runtime.output().lines().filter(l -> l.contains(text) && l.matches("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:.*")).toList();
    }

    @Test
    void theFileServerIsOffUntilConfiguredThenSaysInOneLineWhatItServesWhere() throws Exception {
        try (RuntimeProcess runtime = RuntimeProcess.start(home)) {
            runtime.awaitUp(Duration.ofSeconds(60));
            String password = runtime.generatedPassword();
            String out = runtime.output();
            assertTrue(out.contains("  Listeners:    default 10.0.0.1:445 on mock OPEN\n"), out);
            assertFalse(out.toLowerCase().contains("file server") || out.toLowerCase().contains("fileserver"),
                    "nothing about the file server until configured:\n" + out);
            assertFalse(Files.exists(home.resolve("etc/smbdirect.example.fileserver.cfg")), "no file written for it");
            assertEquals(null, listenerAt(runtime.json(password, null), "10.0.0.1:5445"));

            // configured: on the mock fabric's device, guests only
            Path cfg = home.resolve("etc/smbdirect.example.fileserver.cfg");
            Files.writeString(cfg, "directory = " + share.toRealPath() + "\nlistenAddress = 10.0.0.1:5445\n"
                    + "provider = mock\nguest = true\n");
            runtime.awaitJson(password, j -> listenerAt(j, "10.0.0.1:5445") != null
                    && "OPEN".equals(listenerAt(j, "10.0.0.1:5445").get("state")), "the file server's listener OPEN");
            String directory = share.toRealPath().toString();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (linesAbout(runtime, directory).isEmpty() && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(100); // the log file is polled: the runtime writes it as it goes
            }
            List<String> served = linesAbout(runtime, directory);
            assertEquals(1, served.size(), "one line says what is served where: " + served);
            assertTrue(served.get(0).contains(" INFO ") && served.get(0).contains("10.0.0.1:5445"), served.get(0));

            // a directory that does not exist: refused naming the key and the value before the server sees
            // it; the last good settings are put back into the file, and it keeps serving
            Path missing = share.resolve("missing");
            Files.writeString(cfg, "directory = " + missing + "\nlistenAddress = 10.0.0.1:5445\nprovider = mock\n"
                    + "guest = true\n");
            runtime.awaitOutput("directory = " + missing + " refused (does not exist); the last good settings were put back",
                    Duration.ofSeconds(30));
            RuntimeProcess.awaitFile(home, Path.of("etc/smbdirect.example.fileserver.cfg"),
                    t -> t.contains(directory) && !t.contains(missing.toString()), "the last good directory put back");
            assertEquals(0, runtime.output().lines().filter(l -> l.contains(" ERROR ") && l.contains("refused")).count(),
                    runtime.output());
            Map<String, Object> listener = listenerAt(runtime.json(password, null), "10.0.0.1:5445");
            assertNotNull(listener, runtime.output());
            assertEquals("OPEN", listener.get("state"));

            // deleting the file closes the server
            Files.delete(cfg);
            runtime.awaitJson(password, j -> listenerAt(j, "10.0.0.1:5445") == null, "the listener gone");
            assertEquals(0, runtime.output().lines().filter(l -> l.contains(" ERROR ")).count(), "no error:\n"
                    + runtime.output());
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
        }
    }

    /**
     * A start over the file edited by hand, while the runtime was stopped, to a value the settings
     * guard refuses: the file server never sees the value. The guard (in smbdirect.impl, one start
     * level before the file server) hands it the last good settings it kept while the runtime ran, so
     * it serves them from the start; the guard's WARN names the key and the value, no ERROR is logged,
     * and the last good settings are back in the file.
     */
    @Test
    void aStartOverARefusedHandEditServesTheLastGoodSettingsAndTheServerNeverSeesTheValue() throws Exception {
        Path cfg = home.resolve("etc/smbdirect.example.fileserver.cfg");
        String directory = share.toRealPath().toString();
        String password;
        try (RuntimeProcess runtime = RuntimeProcess.start(home)) {
            runtime.awaitUp(Duration.ofSeconds(60));
            password = runtime.generatedPassword();
            Files.writeString(cfg, "directory = " + directory + "\nlistenAddress = 10.0.0.1:5445\nprovider = mock\n"
                    + "guest = true\n");
            runtime.awaitJson(password, j -> listenerAt(j, "10.0.0.1:5445") != null
                    && "OPEN".equals(listenerAt(j, "10.0.0.1:5445").get("state")), "the file server's listener OPEN");
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
        }
        Path missing = share.resolve("missing");
        Files.writeString(cfg, "directory = " + missing + "\nlistenAddress = 10.0.0.1:5445\nprovider = mock\n"
                + "guest = true\n");
        try (RuntimeProcess runtime = RuntimeProcess.start(home)) {
            runtime.awaitUp(Duration.ofSeconds(60));
            runtime.awaitJson(password, j -> listenerAt(j, "10.0.0.1:5445") != null
                    && "OPEN".equals(listenerAt(j, "10.0.0.1:5445").get("state")), "the file server's listener OPEN");
            runtime.awaitOutput("directory = " + missing + " refused (does not exist); the last good settings were put back",
                    Duration.ofSeconds(30));
            RuntimeProcess.awaitFile(home, Path.of("etc/smbdirect.example.fileserver.cfg"),
                    t -> t.contains(directory) && !t.contains(missing.toString()), "the last good directory put back");
            assertEquals(List.of(), runtime.output().lines().filter(l -> l.contains(" ERROR ")).toList(),
                    "the file server never saw the refused value:\n" + runtime.output());
            List<String> served = linesAbout(runtime, "file server started");
            assertEquals(1, served.size(), "the file server started once: " + served);
            assertTrue(served.get(0).contains("(" + directory + ") on /10.0.0.1:5445"), served.get(0));
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
        }
    }
}
