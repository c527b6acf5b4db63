package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An RDMA provider's last good settings stay, also on disk and across a restart, as an operator sees
 * it, for a value only the provider's own check refuses (its metatype allows it): the software iWARP
 * provider's {@code maxFpduSize = 1001} (in 0..65536, but no multiple of 4). The Web Console's form
 * refuses it, naming the key, the value and the reason, and saves nothing. Written into
 * {@code etc/smbdirect.rdma.iwarp.cfg} of the running runtime, it never reaches the provider: the
 * last good settings stay in force and are put back into the file, and health (WARN) names the file,
 * the key, the value and the reason. Edited into that file by hand while the runtime is stopped, the restarted
 * runtime runs the provider on the last good settings it kept, puts them back into the file and
 * says so in health.
 */
class ProviderSettingsStayGoodIT {

    private static final Path IWARP_FILE = Path.of("etc", "smbdirect.rdma.iwarp.cfg");
    /** The file's maxFpduSize line, typed ({@code I"4096"}) as the Web Console's form writes it, or not. */
    private static final Pattern FPDU_LINE = Pattern.compile("(?m)^maxFpduSize = (I\")?(\\d+)(\"?)$");

    @TempDir
    Path home;

    @SuppressWarnings("unchecked")
    private static Map<String, Object> iwarp(Map<String, Object> json) {
        List<Map<String, Object>> providers = (List<Map<String, Object>>) ((Map<String, Object>) json.get("transport"))
                .get("providers");
        return providers.stream().filter(p -> "iwarp".equals(p.get("name"))).findFirst().orElse(null);
    }

    private static boolean fpdusUpTo4KiB(Map<String, Object> json) {
        Map<String, Object> p = iwarp(json);
        return p != null && String.valueOf(p.get("settings")).contains("FPDUs up to 4 KiB");
    }

    @SuppressWarnings("unchecked")
    private static Predicate<Map<String, Object>> warnFinding(String... parts) {
        return j -> {
            Map<String, Object> health = (Map<String, Object>) j.get("health");
            return "WARN".equals(health.get("status")) && ((List<String>) health.get("findings")).stream()
                    .anyMatch(f -> f.startsWith("WARN settings: ") && List.of(parts).stream().allMatch(f::contains));
        };
    }

    private static String fpduSize(String file) {
        Matcher m = FPDU_LINE.matcher(file);
        return m.find() ? m.group(2) : "(none)";
    }

    private static String form(int port, int maxFpduSize) {
        return "apply=true&action=ajaxConfigManager&propertylist=listenAddresses,maxFpduSize,crc&listenAddresses=127.0.0.1:"
                + port + "&maxFpduSize=" + maxFpduSize + "&crc=false";
    }

    @Test
    void aProviderValueOnlyItsOwnCheckRefusesIsPutBackInForceAndInEtcAndARestartRunsTheProviderOnItsLastGood()
            throws Exception {
        int port = RuntimeProcess.freePort();
        Path file = home.resolve(IWARP_FILE);
        String password;
        try (RuntimeProcess runtime = RuntimeProcess.start(home)) {
            runtime.awaitUp(Duration.ofSeconds(90));
            password = runtime.generatedPassword();
            runtime.post("/configMgr/smbdirect.rdma.iwarp", password, form(port, 4096));
            runtime.awaitJson(password, ProviderSettingsStayGoodIT::fpdusUpTo4KiB, "the iWARP provider with maxFpduSize 4096");
            RuntimeProcess.awaitFile(home, IWARP_FILE, t -> fpduSize(t).equals("4096"), "maxFpduSize 4096 in etc/");

            // in the metatype's range, refused by the provider's own rule: the form refuses it, naming it
            java.net.http.HttpResponse<String> refused = runtime.post("/configMgr/smbdirect.rdma.iwarp", password,
                    form(port, 1001));
            assertEquals(400, refused.statusCode(), refused.body());
            assertTrue(RuntimeProcess.unescaped(refused.body()).contains("maxFpduSize = 1001 refused (must be a multiple "
                    + "of 4 from 64 to 65536, or 0 to follow the path's MSS)"), refused.body());
            assertEquals("4096", fpduSize(Files.readString(file, StandardCharsets.UTF_8)), "nothing saved");
            // written into the file of the running runtime: never handed to the provider, put back
            String good = Files.readString(file, StandardCharsets.UTF_8);
            Files.writeString(file, FPDU_LINE.matcher(good).replaceFirst("maxFpduSize = $11001$3"), StandardCharsets.UTF_8);
            runtime.awaitJson(password, warnFinding("smbdirect.rdma.iwarp", "maxFpduSize = 1001 refused (must be a "
                    + "multiple of 4 from 64 to 65536, or 0 to follow the path's MSS)",
                    "the last good settings were put back"), "the refused maxFpduSize in health");
            assertTrue(fpdusUpTo4KiB(runtime.json(password, null)), "the last good settings in force");
            RuntimeProcess.awaitFile(home, IWARP_FILE, t -> fpduSize(t).equals("4096"), "the last good maxFpduSize in etc/");
            assertTrue(!runtime.output().contains("maxFpduSize = 1001 is invalid"),
                    "the provider itself never saw 1001:\n" + runtime.output());
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
        }

        // edited by hand while stopped
        String text = Files.readString(file, StandardCharsets.UTF_8);
        assertEquals("4096", fpduSize(text), text);
        Files.writeString(file, FPDU_LINE.matcher(text).replaceFirst("maxFpduSize = $11002$3"), StandardCharsets.UTF_8);

        try (RuntimeProcess again = RuntimeProcess.start(home)) {
            again.awaitUp(Duration.ofSeconds(90));
            again.awaitJson(password, ProviderSettingsStayGoodIT::fpdusUpTo4KiB,
                    "the iWARP provider on its last good settings (maxFpduSize 4096), not on the refused 1002");
            again.awaitJson(password, warnFinding(file.toString(), "maxFpduSize = 1002 refused",
                    "the last good settings were put back"), "the hand-edited file's refused value in health");
            RuntimeProcess.awaitFile(home, IWARP_FILE, t -> fpduSize(t).equals("4096"), "the last good maxFpduSize put back");
            assertTrue(fpdusUpTo4KiB(again.json(password, null)), again.output());
            assertTrue(!again.output().contains("maxFpduSize = 1002 is invalid"),
                    "the provider itself never saw 1002:\n" + again.output());
            assertEquals(0, again.terminate(Duration.ofSeconds(30)), again.output());
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> provider(Map<String, Object> json, String name) {
        List<Map<String, Object>> providers = (List<Map<String, Object>>) ((Map<String, Object>) json.get("transport"))
                .get("providers");
        return providers.stream().filter(p -> name.equals(p.get("name"))).findFirst().orElse(null);
    }

    /** Whether the settings guard keeps last good settings of {@code pid} ({@code data/cache/.../last-good/PID.config}). */
    private boolean keptAsLastGood(String pid) throws java.io.IOException {
        try (java.util.stream.Stream<Path> files = Files.walk(home.resolve("data/cache"))) {
            return files.anyMatch(f -> f.endsWith(Path.of("last-good", pid + ".config")));
        }
    }

    private static boolean secondMockWith2048Sends(Map<String, Object> json) {
        Map<String, Object> p = provider(json, "second");
        return p != null && String.valueOf(p.get("capabilities")).startsWith("send queue 2048 work requests");
    }

    /**
     * The same across a restart for the other providers' files, edited by hand while the runtime is
     * stopped: a configured mock provider ({@code etc/smbdirect.rdma.mock-second.cfg},
     * {@code maxSendWorkRequests = 0}, below the metatype's minimum) runs on its last good settings
     * and the file gets them back; the verbs provider's file ({@code pollBatch = 0}) gets its last
     * good value back (this machine has no RDMA device, so the provider itself is not registered:
     * its settings are guarded all the same). Health (WARN) names each file, key, value and reason.
     */
    @Test
    void theMockAndVerbsProvidersHandEditedWhileStoppedStartOnTheirLastGoodSettings() throws Exception {
        Path mock = home.resolve("etc/smbdirect.rdma.mock-second.cfg");
        Path verbs = home.resolve("etc/smbdirect.rdma.verbs.cfg");
        String password;
        try (RuntimeProcess runtime = RuntimeProcess.start(home)) {
            runtime.awaitUp(Duration.ofSeconds(90));
            password = runtime.generatedPassword();
            Files.writeString(mock, "smbdirect.provider = second\nservice.ranking = -200\nmaxSendWorkRequests = 2048\n");
            Files.writeString(verbs, "pollBatch = 64\n");
            runtime.awaitJson(password, ProviderSettingsStayGoodIT::secondMockWith2048Sends,
                    "the configured mock provider second with 2048 send work requests");
            // the guard keeps the verbs file's settings as the last good (in its data area under data/)
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!keptAsLastGood("smbdirect.rdma.verbs")) {
                assertTrue(System.nanoTime() < deadline, "the verbs settings kept as the last good:\n" + runtime.output());
                Thread.sleep(100); // polling the guard's data area
            }
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
        }
        Files.writeString(mock, Files.readString(mock).replace("maxSendWorkRequests = 2048", "maxSendWorkRequests = 0"));
        Files.writeString(verbs, Files.readString(verbs).replaceAll("(?m)^pollBatch = .*$", "pollBatch = 0"));

        try (RuntimeProcess again = RuntimeProcess.start(home)) {
            again.awaitUp(Duration.ofSeconds(90));
            again.awaitJson(password, ProviderSettingsStayGoodIT::secondMockWith2048Sends,
                    "the mock provider second on its last good settings (2048), not on the refused 0");
            again.awaitJson(password, warnFinding("smbdirect.rdma.mock-second.cfg", "maxSendWorkRequests = 0 refused",
                    "the last good settings were put back"), "the hand-edited mock file's refused value in health");
            again.awaitJson(password, warnFinding("smbdirect.rdma.verbs.cfg", "pollBatch = 0 refused",
                    "the last good settings were put back"), "the hand-edited verbs file's refused value in health");
            RuntimeProcess.awaitFile(home, Path.of("etc/smbdirect.rdma.mock-second.cfg"),
                    t -> Pattern.compile("(?m)^maxSendWorkRequests = (I\")?2048\"?$").matcher(t).find(),
                    "the mock's last good value put back");
            RuntimeProcess.awaitFile(home, Path.of("etc/smbdirect.rdma.verbs.cfg"),
                    t -> Pattern.compile("(?m)^pollBatch = (I\")?64\"?$").matcher(t).find(),
                    "the verbs provider's last good value put back");
            assertEquals(0, again.terminate(Duration.ofSeconds(30)), again.output());
        }
    }
}
