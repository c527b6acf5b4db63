package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.dist.etc.ConsolePassword;

/**
 * The runtime's {@code etc/} as an appliance image ships it and as an operator edits it: a home set
 * on the command line, shipped files in force from the first start, and files that are malformed or
 * out of range refused with one log line naming the file, the attribute and the value while the
 * last good settings stay in force (and are put back into the file) and every other file loads.
 */
class EtcFilesIT {

    private static final String PASSWORD = "image-Secret-1";

    @TempDir
    Path work;

    @TempDir
    Path home;

    @SuppressWarnings("unchecked")
    private static Map<String, Object> transport(Map<String, Object> json) {
        return (Map<String, Object>) json.get("transport");
    }

    @SuppressWarnings("unchecked")
    private static int setting(Map<String, Object> json, String name) {
        return ((Number) ((Map<String, Object>) transport(json).get("settings")).get(name)).intValue();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> listener(Map<String, Object> json, String name) {
        return ((List<Map<String, Object>>) transport(json).get("listeners")).stream()
                .filter(l -> name.equals(l.get("name"))).findFirst().orElse(null);
    }

    private void shipImage() throws Exception {
        Path etc = Files.createDirectories(home.resolve("etc"));
        Files.writeString(etc.resolve("smbdirect.transport.cfg"), "# tuned for this appliance\nreceiveCreditMax = 64\n");
        Files.writeString(etc.resolve("smbdirect.listener-files.cfg"), "name = files\nbindAddress = 10.0.0.1\n"
                + "port = 5445\nacceptHandler.target = (smbdirect.acceptHandler=perf)\n");
        Files.writeString(etc.resolve(ConsolePassword.PID + ".cfg"), "username = admin\npassword = "
                + new ConsolePassword(new SecureRandom()).hash(PASSWORD) + "\n");
    }

    /** The ERROR lines of the output that mention {@code text}. */
    private static void awaitFileContains(Path file, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (Files.readString(file).contains(text)) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new AssertionError("'" + text + "' never in " + file + ":\n" + Files.readString(file));
    }

    private static List<String> errors(RuntimeProcess runtime, String text) throws Exception {
        return lines(runtime, " ERROR ", text);
    }

    private static List<String> lines(RuntimeProcess runtime, String level, String text) throws Exception {
        return runtime.output().lines().filter(l -> l.contains(level) && l.contains(text)).toList();
    }

    /** Waits until one WARN line mentions all of {@code parts}; fails if a second one follows. */
    private static void oneWarnLine(RuntimeProcess runtime, String... parts) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            List<String> found = runtime.output().lines().filter(l -> l.contains(" WARN ")
                    && java.util.Arrays.stream(parts).allMatch(l::contains)).toList();
            if (!found.isEmpty()) {
                TimeUnit.SECONDS.sleep(2); // FileInstall polls each second: a second line would come by now
                found = runtime.output().lines().filter(l -> l.contains(" WARN ")
                        && java.util.Arrays.stream(parts).allMatch(l::contains)).toList();
                assertEquals(1, found.size(), "one line: " + found);
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new AssertionError("no WARN line with " + java.util.Arrays.toString(parts) + ":\n" + runtime.output());
    }

    /** Waits until one ERROR line mentions all of {@code parts}; fails if a second one follows. */
    private static String oneErrorLine(RuntimeProcess runtime, String file, String... parts) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            List<String> lines = errors(runtime, file);
            if (!lines.isEmpty()) {
                TimeUnit.SECONDS.sleep(2); // FileInstall polls each second: a second line would come by now
                lines = errors(runtime, file);
                assertEquals(1, lines.size(), "one line for " + file + ": " + lines);
                for (String p : parts) {
                    assertTrue(lines.get(0).contains(p), "'" + p + "' in: " + lines.get(0));
                }
                return lines.get(0);
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new AssertionError("no ERROR line about " + file + ":\n" + runtime.output());
    }

    @Test
    void anImageShipsEtcAndTheHomeIsSetOnTheCommandLine() throws Exception {
        shipImage();
        try (RuntimeProcess runtime = RuntimeProcess.start(work, List.of("-Dsmbdirect.home=" + home))) {
            runtime.awaitUp(Duration.ofSeconds(60));
            String out = runtime.output();
            assertTrue(out.contains("  Home:         " + home.toRealPath() + "   (configuration files in etc/"), out);
            assertTrue(out.contains("password as configured"), out);
            assertFalse(out.contains("generated at this first start"), out);
            Map<String, Object> json = runtime.json(PASSWORD, null);
            assertEquals(64, setting(json, "receiveCreditMax"), "the shipped setting is in force");
            assertEquals("OPEN", listener(json, "files").get("state"));
            assertEquals(null, listener(json, "default"), "an image with listener files gets no default listener");
            assertEquals("# tuned for this appliance\nreceiveCreditMax = 64\n",
                    Files.readString(home.resolve("etc/smbdirect.transport.cfg")), "shipped files are not rewritten");
            assertTrue(Files.isDirectory(home.resolve("data/cache")));
            try (var inWork = Files.list(work)) {
                assertTrue(inWork.allMatch(p -> p.getFileName().toString().startsWith("runtime-")),
                        "nothing but the log in the working directory");
            }
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
        }
    }

    @Test
    void badFilesAreRefusedWithOneLineAndTheLastGoodSettingsAndOtherFilesStay() throws Exception {
        shipImage();
        try (RuntimeProcess runtime = RuntimeProcess.start(home)) {
            runtime.awaitUp(Duration.ofSeconds(60));
            Path transport = home.resolve("etc/smbdirect.transport.cfg").toRealPath();

            // out of range: the last good settings are put back, in force and in the file
            Files.writeString(transport, "receiveCreditMax = 0\n");
            oneWarnLine(runtime, "Configuration " + transport + ": receiveCreditMax = 0 refused",
                    "the last good settings were put back");
            assertEquals(64, setting(runtime.json(PASSWORD, null), "receiveCreditMax"));
            awaitFileContains(transport, "receiveCreditMax = 64");
            assertTrue(errors(runtime, "receiveCreditMax=0").isEmpty(), "the component never saw it: " + runtime.output());

            // no number
            Files.writeString(transport, "receiveCreditMax = 64\n# the operator's typo:\nsendCreditTarget = 1OO\n");
            oneWarnLine(runtime, "Configuration " + transport + ": sendCreditTarget = 1OO refused (not a whole number)");
            assertEquals(255, setting(runtime.json(PASSWORD, null), "sendCreditTarget"));

            // malformed: FileInstall cannot read the file at all; a good file written at the same time loads
            Path broken = home.resolve("etc/smbdirect.listener-broken.cfg");
            Path good = home.resolve("etc/smbdirect.listener-good.cfg");
            Files.writeString(broken, "name = broken\nbindAddress = 10.0.0.1\nport = 4\\uZZZZ5\n");
            Files.writeString(good, "name = good\nbindAddress = 10.0.0.1\nport = 5446\n"
                    + "acceptHandler.target = (smbdirect.acceptHandler=perf)\n");
            oneErrorLine(runtime, broken.toRealPath().toString(), "not applied, line 3: port = 4\\uZZZZ5: a \\u escape needs four hex digits",
                    "the other files are unaffected");
            runtime.awaitJson(PASSWORD, j -> listener(j, "good") != null && "OPEN".equals(listener(j, "good").get("state")),
                    "listener good OPEN");

            // a running listener given a port that is no number keeps its endpoint
            Path files = home.resolve("etc/smbdirect.listener-files.cfg").toRealPath();
            Files.writeString(files, Files.readString(files).replace("port = 5445", "port = 54x5"));
            oneWarnLine(runtime, "Configuration " + files + ": port = 54x5 refused (not a whole number)",
                    "the last good settings were put back");
            awaitFileContains(files, "port = 5445");
            Map<String, Object> json = runtime.json(PASSWORD, null);
            assertEquals("10.0.0.1:5445", listener(json, "files").get("address"));
            assertEquals("OPEN", listener(json, "files").get("state"));
            assertEquals(64, setting(json, "receiveCreditMax"));
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
        }
    }
}
