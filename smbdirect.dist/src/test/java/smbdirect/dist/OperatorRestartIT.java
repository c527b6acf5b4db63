package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.dist.RuntimeProcess.settings;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import smbdirect.dist.etc.ConsolePassword;

/**
 * What an operator does to an appliance, end to end. In the Web Console's configuration dialog
 * (headless Chromium): change {@code receiveCreditMax} and the Web Console password and find both
 * in the files under {@code etc/}. Without a browser: change both through the form the dialog posts,
 * stop the runtime with SIGTERM, start it again and find both in force; then edit a file under
 * {@code etc/} of the running runtime and see it applied, delete a listener's file and see that
 * listener closed and nothing else, and create and delete a listener in the Web Console and see its
 * file come and go. Only the first test needs Chromium.
 */
class OperatorRestartIT {

    private static final String NEW_PASSWORD = "Appliance-0perator!";
    private static final Path WEBCONSOLE_FILE = Path.of("etc", ConsolePassword.PID + ".cfg");
    private static final Path TRANSPORT_FILE = Path.of("etc", "smbdirect.transport.cfg");

    @TempDir
    Path home;

    @TempDir
    Path browser;

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> listeners(Map<String, Object> json) {
        return (List<Map<String, Object>>) ((Map<String, Object>) json.get("transport")).get("listeners");
    }

    /** Waits (bounded) until {@code file} under the home satisfies {@code condition}; returns its text. */
    private String awaitFile(Path file, java.util.function.Predicate<String> condition, String what) throws Exception {
        return RuntimeProcess.awaitFile(home, file, condition, what);
    }

    /** Waits until the Web Console's file holds the hash of {@link #NEW_PASSWORD}, and only the hash. */
    private void awaitNewPasswordStored() throws Exception {
        String stored = awaitFile(WEBCONSOLE_FILE, t -> {
            Object p = RuntimeProcess.parseConfiguration(t).get("password");
            return p instanceof String s && ConsolePassword.matches(s, NEW_PASSWORD);
        }, "the hash of the new password");
        assertFalse(stored.contains(NEW_PASSWORD), "only the hash is stored:\n" + stored);
    }

    /** Clicks Save in the configuration dialog; waits for the dialog to close unless {@code field} is null. */
    private static void save(WebDriver driver, WebDriverWait wait, By field) {
        WebElement save = driver.findElements(By.cssSelector(".ui-dialog-buttonpane button")).stream()
                .filter(b -> b.getText().trim().equalsIgnoreCase("Save")).findFirst()
                .orElseThrow(() -> new AssertionError("no Save button in the configuration dialog"));
        save.click();
        if (field != null) {
            wait.until(ExpectedConditions.invisibilityOfElementLocated(field));
        }
    }

    @Test
    void theWebConsoleDialogWritesASettingAndThePasswordToTheFilesUnderEtc() throws Exception {
        Chromium.requireInstalled();
        try (RuntimeProcess runtime = RuntimeProcess.start(home)) {
            runtime.awaitUp(Duration.ofSeconds(60));
            String generated = runtime.generatedPassword();
            try (Chromium chromium = Chromium.start(browser, 1280, 800)) {
                WebDriver driver = chromium.driver;
                WebDriverWait wait = chromium.await(Duration.ofSeconds(30));
                String base = "http://admin:" + generated + "@127.0.0.1:" + runtime.httpPort + "/system/console";

                driver.get(base + "/configMgr/smbdirect.transport");
                WebElement credits = wait.until(ExpectedConditions.visibilityOfElementLocated(By.name("receiveCreditMax")));
                credits.clear();
                credits.sendKeys("100");
                save(driver, wait, By.name("receiveCreditMax"));
                String transport = awaitFile(TRANSPORT_FILE, t -> t.contains("\nreceiveCreditMax = 100\n"),
                        "receiveCreditMax = 100");
                assertTrue(transport.contains("\nsendCreditTarget = 255\n"), "the dialog keeps the other settings:\n"
                        + transport);

                driver.get(base + "/configMgr/" + ConsolePassword.PID);
                WebElement password = wait.until(ExpectedConditions.visibilityOfElementLocated(By.name("password")));
                password.clear();
                password.sendKeys(NEW_PASSWORD);
                // the browser's credentials are the old ones from now on: the dialog cannot reload itself
                save(driver, wait, null);
                awaitNewPasswordStored();
            }
            runtime.awaitConsolePassword(NEW_PASSWORD, generated);
            assertEquals(100, ((Number) settings(runtime.json(NEW_PASSWORD, null)).get("receiveCreditMax")).intValue());
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
        }
    }

    @Test
    void aSettingAndThePasswordChangedInTheWebConsoleSurviveSigtermAndARestartAndEtcFilesApplyLive() throws Exception {
        String generated;
        try (RuntimeProcess runtime = RuntimeProcess.start(home)) {
            runtime.awaitUp(Duration.ofSeconds(60));
            generated = runtime.generatedPassword();
            assertTrue(runtime.output().contains("  Home:         " + home.toRealPath()), runtime.output());
            // the first start wrote what is in force as files
            assertTrue(Files.readString(home.resolve(TRANSPORT_FILE)).contains("\nreceiveCreditMax = 255\n"));
            assertTrue(Files.readString(home.resolve("etc/smbdirect.listener-default.cfg"))
                    .contains("\nbindAddress = 10.0.0.1\n"));
            assertTrue(Files.isDirectory(home.resolve("data/cache")), "framework state under data/");

            // what the configuration dialogs post on Save (theWebConsoleDialogWrites... drives them in a browser)
            runtime.postConfiguration(generated, "smbdirect.transport", Map.of("receiveCreditMax", "100"));
            awaitFile(TRANSPORT_FILE, t -> t.contains("\nreceiveCreditMax = 100\n") && t.contains("\nsendCreditTarget = 255\n"),
                    "receiveCreditMax = 100 beside the other settings");
            runtime.postConfiguration(generated, ConsolePassword.PID, Map.of("password", NEW_PASSWORD));
            awaitNewPasswordStored();
            runtime.awaitConsolePassword(NEW_PASSWORD, generated);

            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
            assertTrue(runtime.output().contains("stopping the runtime (SIGTERM)"), runtime.output());
        }

        try (RuntimeProcess again = RuntimeProcess.start(home)) {
            again.awaitUp(Duration.ofSeconds(60));
            String out = again.output();
            assertTrue(out.contains("Credentials:  user admin, password as configured (hash in " + WEBCONSOLE_FILE + ")"), out);
            assertFalse(out.contains("generated at this first start"), out);
            assertFalse(Files.exists(home.resolve("data/webconsole-password")),
                    "the file of the generated password, changed since, is removed");
            assertTrue(out.contains("The generated Web Console password was changed: data/webconsole-password removed"), out);
            assertEquals(401, again.get("/smbdirect", generated).statusCode(), "the generated password is gone");
            assertEquals(401, again.get("/smbdirect", "admin").statusCode(), "no default password");
            assertEquals(100, ((Number) settings(again.json(NEW_PASSWORD, null)).get("receiveCreditMax")).intValue(),
                    "receiveCreditMax survived the restart");

            // an edit of a file while running is applied live
            Path transport = home.resolve(TRANSPORT_FILE);
            String edited = Files.readString(transport).replace("\nsendCreditTarget = 255\n", "\nsendCreditTarget = 64\n");
            assertTrue(edited.contains("\nsendCreditTarget = 64\n"), edited);
            Files.writeString(transport, edited);
            again.awaitJson(NEW_PASSWORD, j -> ((Number) settings(j).get("sendCreditTarget")).intValue() == 64, "sendCreditTarget 64");
            again.awaitOutput("Configuration smbdirect.transport from " + transport.toRealPath() + " applied",
                    Duration.ofSeconds(10));

            // a new listener file opens a listener; deleting it closes that listener and nothing else
            Path second = home.resolve("etc/smbdirect.listener-second.cfg");
            Files.writeString(second, "name = second\nbindAddress = 10.0.0.1\nport = 4450\n"
                    + "acceptHandler.target = (smbdirect.acceptHandler=perf)\n");
            again.awaitJson(NEW_PASSWORD, j -> listeners(j).stream().anyMatch(l -> "second".equals(l.get("name"))
                    && "OPEN".equals(l.get("state"))), "listener second OPEN");
            Files.delete(second);
            again.awaitJson(NEW_PASSWORD, j -> listeners(j).stream().noneMatch(l -> "second".equals(l.get("name"))),
                    "listener second closed");
            assertTrue(listeners(again.json(NEW_PASSWORD, null)).stream().anyMatch(l -> "default".equals(l.get("name"))
                    && "OPEN".equals(l.get("state"))), "the default listener stays open");
            again.awaitOutput("Listener second at /10.0.0.1:4450 closed", Duration.ofSeconds(10));

            // a listener created in the Web Console (its form posts this) gets a file; deleting it there removes the file
            String created = again.post("/configMgr/" + URLEncoder.encode("[Temporary PID replaced by real PID upon save]",
                    StandardCharsets.UTF_8).replace("+", "%20"), NEW_PASSWORD, "apply=true&action=ajaxConfigManager"
                    + "&factoryPid=smbdirect.listener&propertylist=name,bindAddress,port,acceptHandler.target"
                    + "&name=backup&bindAddress=10.0.0.1&port=4455&acceptHandler.target="
                    + URLEncoder.encode("(smbdirect.acceptHandler=perf)", StandardCharsets.UTF_8)).body();
            String backup = awaitFile(Path.of("etc", "smbdirect.listener-backup.cfg"), t -> t.contains("\nport = 4455\n"),
                    "the Web Console's listener (" + created + ")");
            again.awaitJson(NEW_PASSWORD, j -> listeners(j).stream().anyMatch(l -> "backup".equals(l.get("name"))
                    && "OPEN".equals(l.get("state"))), "listener backup OPEN");
            Matcher pid = Pattern.compile("# Configuration (smbdirect\\.listener\\S+), written").matcher(backup);
            assertTrue(pid.find(), backup);
            again.post("/configMgr/" + pid.group(1), NEW_PASSWORD, "apply=true&delete=true&action=ajaxConfigManager");
            awaitFile(Path.of("etc", "smbdirect.listener-backup.cfg"), String::isEmpty, "the file deleted");
            again.awaitJson(NEW_PASSWORD, j -> listeners(j).stream().noneMatch(l -> "backup".equals(l.get("name"))),
                    "listener backup closed");
            assertEquals(0, again.terminate(Duration.ofSeconds(30)), again.output());
        }
    }
}
