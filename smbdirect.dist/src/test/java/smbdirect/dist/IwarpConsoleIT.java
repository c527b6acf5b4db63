package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The software iWARP provider in the serving runtime: installed but opening nothing until
 * configured; configured from the Web Console's configuration form (what its form posts), which
 * writes {@code etc/smbdirect.rdma.iwarp.cfg}; a bad value refused naming the attribute (by the
 * provider's own check, before the provider sees it) with the last good settings in force; the provider's settings and statistics in the status JSON.
 */
class IwarpConsoleIT {

    @TempDir
    Path home;

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> providers(Map<String, Object> json) {
        return (List<Map<String, Object>>) ((Map<String, Object>) json.get("transport")).get("providers");
    }

    private static Map<String, Object> iwarp(Map<String, Object> json) {
        return providers(json).stream().filter(p -> "iwarp".equals(p.get("name"))).findFirst().orElse(null);
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Test
    void theProviderOpensNothingUntilConfiguredInTheWebConsoleAndRefusesABadValue() throws Exception {
        int port = RuntimeProcess.freePort();
        try (RuntimeProcess runtime = RuntimeProcess.start(home)) {
            runtime.awaitUp(Duration.ofSeconds(90));
            String password = runtime.generatedPassword();
            Map<String, Object> json = runtime.json(password, null);
            assertEquals(null, iwarp(json), "no iWARP provider before it is configured: " + providers(json));
            assertFalse(Files.exists(home.resolve("etc/smbdirect.rdma.iwarp.cfg")), "the first start writes no iWARP file");
            assertFalse(accepts(5445), "nothing listens on the iWARP port");

            // the Web Console's form for PID smbdirect.rdma.iwarp posts this
            runtime.post("/configMgr/smbdirect.rdma.iwarp", password, "apply=true&action=ajaxConfigManager"
                    + "&propertylist=listenAddresses,maxFpduSize,crc&listenAddresses=127.0.0.1:" + port
                    + "&maxFpduSize=4096&crc=false");
            runtime.awaitJson(password, j -> iwarp(j) != null && String.valueOf(iwarp(j).get("settings")).contains("FPDUs up to 4 KiB"),
                    "the iWARP provider with maxFpduSize 4096");
            Map<String, Object> provider = iwarp(runtime.json(password, null));
            assertEquals("IWARP", provider.get("transportType"));
            assertTrue(String.valueOf(provider.get("settings")).contains("127.0.0.1:" + port), provider.toString());
            assertTrue(provider.get("statistics") != null, "the provider's counters in words: " + provider);
            Path cfg = home.resolve("etc/smbdirect.rdma.iwarp.cfg");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // a typed file (the form's values are typed by the Metatype): maxFpduSize = I"4096"
            java.util.regex.Pattern written = java.util.regex.Pattern.compile("(?m)^maxFpduSize = (I\")?4096\"?$");
            while (!(Files.exists(cfg) && written.matcher(Files.readString(cfg)).find()) && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
            String text = Files.exists(cfg) ? Files.readString(cfg) : "(no file)";
            assertTrue(written.matcher(text).find(), "the Web Console's configuration is written to etc/: " + text);
            assertFalse(accepts(port), "configuring the provider opens no port by itself");

            // a bad value (in the metatype's range, refused by the provider's own check) is refused by the
            // form itself, naming the attribute, the value and the reason; nothing is saved
            java.net.http.HttpResponse<String> refused = runtime.post("/configMgr/smbdirect.rdma.iwarp", password,
                    "apply=true&action=ajaxConfigManager&propertylist=listenAddresses,maxFpduSize,crc&listenAddresses="
                    + "127.0.0.1:" + port + "&maxFpduSize=63&crc=false");
            String reason = "maxFpduSize = 63 refused (must be a multiple of 4 from 64 to 65536, or 0 to follow the path's MSS)";
            assertEquals(400, refused.statusCode(), refused.body());
            assertTrue(RuntimeProcess.unescaped(refused.body()).contains("Not saved: " + reason), refused.body());
            runtime.awaitOutput("Configuration smbdirect.rdma.iwarp not saved from the Web Console's form: " + reason,
                    Duration.ofSeconds(30));
            assertTrue(written.matcher(Files.readString(cfg)).find(), "etc/ keeps the last good file: " + Files.readString(cfg));
            assertTrue(String.valueOf(iwarp(runtime.json(password, null)).get("settings")).contains("FPDUs up to 4 KiB"),
                    runtime.output());
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
        }
    }
}
