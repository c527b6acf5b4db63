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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import smbdirect.dist.etc.ConsolePassword;

/**
 * The status page as an operator keeps it open, in headless Chromium at 1280 x 800 while the perf
 * workload runs in the runtime: nothing is wider than the window, capabilities and settings read in
 * words with units, the charts draw the traffic (including the minutes before the page was opened:
 * the history is the server's), the page refreshes in place, a connection's details open on demand,
 * and a test connection opened and closed from the page. Screenshots go to
 * {@code target/status-page-1280x800.png} and {@code target/status-page-details.png}.
 */
class StatusPageChromiumIT {

    private static final String PASSWORD = "status-Page-2";

    @TempDir
    Path home;

    @TempDir
    Path browser;

    private static Path target() {
        return RuntimeProcess.jar().toAbsolutePath().getParent();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> connections(Map<String, Object> json) {
        return (List<Map<String, Object>>) ((Map<String, Object>) json.get("transport")).get("connections");
    }

    private static Object js(WebDriver driver, String script, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(script, args);
    }

    @Test
    void theStatusPageFitsDrawsTheTrafficRefreshesInPlaceAndClosesAConnection() throws Exception {
        Chromium.requireInstalled();
        Files.createDirectories(home.resolve("etc"));
        Files.writeString(home.resolve("etc/" + ConsolePassword.PID + ".cfg"), "username = admin\npassword = "
                + new ConsolePassword(new SecureRandom()).hash(PASSWORD) + "\n");
        try (RuntimeProcess runtime = RuntimeProcess.start(home, "perf", "--duration", "75s", "--direction", "send")) {
            // traffic for a while before anyone looks: the page must show it from the server's history
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (true) {
                try {
                    Map<String, Object> json = runtime.json(PASSWORD, null);
                    if (connections(json).stream().anyMatch(c -> ((Number) c.get("messagesSent")).longValue() > 0)) {
                        break;
                    }
                } catch (java.io.IOException | AssertionError e) {
                    // the Web Console or the page is not up yet
                }
                if (System.nanoTime() > deadline || !runtime.process.isAlive()) {
                    throw new AssertionError("no perf traffic:\n" + runtime.output());
                }
                TimeUnit.MILLISECONDS.sleep(250);
            }
            TimeUnit.SECONDS.sleep(6); // six samples of history before the page opens

            try (Chromium chromium = Chromium.start(browser, 1280, 800)) {
                WebDriver driver = chromium.driver;
                WebDriverWait wait = chromium.await(Duration.ofSeconds(30));
                String page = "http://admin:" + PASSWORD + "@127.0.0.1:" + runtime.httpPort + "/system/console/smbdirect";
                driver.get(page);
                wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#smbd-connections tr[data-key]")));
                assertEquals(1280L, js(driver, "return window.innerWidth;"), "the window is 1280 px wide");

                // the charts draw the minutes before the page was opened, with traffic in them
                wait.until(d -> Boolean.TRUE.equals(js(d, "var c = window.Chart && Chart.getChart("
                        + "document.querySelector('[data-provider=mock] canvas'));"
                        + "return !!c && c.data.datasets[0].data.length >= 6"
                        + " && c.data.datasets[0].data.some(function (p) { return p.y > 0; });")));
                for (int i = 0; i < 4; i++) {
                    Object drawn = js(driver, "var c = Chart.getChart(document.querySelectorAll('[data-provider=mock] canvas')[arguments[0]]);"
                            + "return c.width > 150 && c.height > 80 && c.data.datasets.every(function (d) { return d.data.length > 0; });", i);
                    assertEquals(Boolean.TRUE, drawn, "provider chart " + i + " is drawn with data");
                }
                assertEquals(Boolean.TRUE, js(driver, "var c = Chart.getChart(document.querySelectorAll("
                        + "'[data-provider=mock] canvas')[1]); return c.data.datasets[0].data.some(function (p) { return p.y > 0; });"),
                        "messages per second drawn");

                // nothing wider than the window
                assertEquals(Boolean.TRUE, js(driver, "return document.documentElement.scrollWidth <= window.innerWidth;"),
                        "no horizontal scrolling: scrollWidth " + js(driver, "return document.documentElement.scrollWidth;"));
                Object overflowing = js(driver, "var out = []; document.querySelectorAll('#smbd *').forEach(function (e) {"
                        + " var r = e.getBoundingClientRect(); if (r.width > 0 && r.right > window.innerWidth + 0.5)"
                        + " out.push(e.tagName + '.' + e.className + ' ' + Math.round(r.right)); }); return out.join(', ');");
                assertEquals("", overflowing, "elements beyond the right edge");

                // words and units
                String caps = driver.findElement(By.cssSelector("[data-provider=mock] .smbd-caps")).getText();
                assertTrue(caps.startsWith("send queue 4096 work requests, receive queue 4096 work requests"), caps);
                assertFalse(caps.contains("RdmaCapabilities"), caps);
                assertEquals("8 KiB", driver.findElement(By.cssSelector("#smbd-settings td.maxReceiveSize")).getText());
                assertEquals("2 min", driver.findElement(By.cssSelector("#smbd-settings td.keepaliveIntervalSeconds")).getText());
                assertEquals("255 credits", driver.findElement(By.cssSelector("#smbd-settings td.receiveCreditMax")).getText());
                assertEquals("10 s", driver.findElement(By.cssSelector("#smbd-settings td.drainTimeoutSeconds")).getText());
                WebElement active = driver.findElements(By.cssSelector("#smbd-connections tr[data-key]")).stream()
                        .filter(r -> r.getText().contains("ACTIVE")).findFirst().orElseThrow();
                assertTrue(active.getText().matches("(?s).*\\d+(\\.\\d)? [kMG]?B/s.*"), "throughput with its unit: " + active.getText());

                chromium.screenshot(target().resolve("status-page-1280x800.png"));

                // the health is said once, in the bar: its status and its findings
                String bar = driver.findElement(By.cssSelector("#smbd .smbd-bar")).getText();
                assertEquals(1, bar.split("listener\\(s\\)", -1).length - 1, "the listeners counted once: " + bar);
                assertTrue(bar.contains("Health: OK") && bar.contains("listener(s) open"), bar);
                assertEquals(0, driver.findElements(By.id("smbd-summary")).size(), "no second summary");
                // connection ids are numbered per provider: shown with it, as in smbdirect.json's keys
                List<WebElement> rows = driver.findElements(By.cssSelector("#smbd-connections tr[data-key]"));
                for (WebElement r : rows) {
                    assertEquals(r.getAttribute("data-key"), r.findElement(By.cssSelector("td.id")).getText());
                }
                // each Close button sits on its row's line, not below it
                Object offLine = js(driver, "var out = [];"
                        + " document.querySelectorAll('#smbd-connections tr[data-key]').forEach(function (r) {"
                        + " var range = document.createRange(); range.selectNodeContents(r.querySelector('td.id'));"
                        + " var t = range.getBoundingClientRect(), b = r.querySelector('button.smbd-close').getBoundingClientRect();"
                        + " var d = (b.top + b.bottom) / 2 - (t.top + t.bottom) / 2;"
                        + " if (Math.abs(d) > 2) out.push(r.getAttribute('data-key') + ' ' + d.toFixed(1) + ' px'); });"
                        + " return out.join(', ');");
                assertEquals("", offLine, "Close buttons off their row's text line");
                // granted is drawn dashed over held, which it often equals
                assertEquals(Boolean.TRUE, js(driver, "var c = Chart.getChart(document.querySelectorAll("
                        + "'[data-provider=mock] canvas')[2]); var held = c.data.datasets[0], granted = c.data.datasets[1];"
                        + " return held.label === 'held' && granted.label === 'granted' && granted.borderDash.length > 0"
                        + " && granted.order < held.order && held.borderWidth > granted.borderWidth;"), "granted over held");
                assertEquals("", js(driver, ChartLabels.REPEATED), "y axis labels said twice");

                // refreshed in place: the numbers move, the page is not reloaded
                js(driver, "window.smbdLoaded = 'once';");
                String key = active.getAttribute("data-key");
                String before = active.findElements(By.tagName("td")).get(8).getText();
                String rendered = root(driver).getAttribute("data-rendered");
                wait.until(d -> !rendered.equals(root(d).getAttribute("data-rendered")));
                wait.until(d -> !before.equals(row(d, key).findElements(By.tagName("td")).get(8).getText()));
                assertEquals("once", js(driver, "return window.smbdLoaded;"), "the page was not reloaded");

                // details on demand, with the connection's own charts
                row(driver, key).findElement(By.cssSelector("td.toggle button")).click();
                WebElement details = wait.until(ExpectedConditions.visibilityOfElementLocated(
                        By.cssSelector("tr[data-details-of='" + key + "']")));
                assertTrue(details.getText().contains("MaxFragmentedRecvSize"), details.getText());
                assertEquals("255", details.findElement(By.cssSelector("dd.receiveCreditMax")).getText());
                wait.until(d -> Boolean.TRUE.equals(js(d, "var c = Chart.getChart(document.querySelector("
                        + "'tr[data-details-of=\"" + key + "\"] canvas')); return !!c && c.data.datasets[0].data.length > 0;")));
                assertEquals(Boolean.TRUE, js(driver, "return document.documentElement.scrollWidth <= window.innerWidth;"),
                        "the details fit too");
                js(driver, "arguments[0].scrollIntoView();", details);
                chromium.screenshot(target().resolve("status-page-details.png"));

                // a test connection opened and closed from the page; the perf connections stay
                driver.findElement(By.id("smbd-connect")).click();
                String opened = wait.until(ExpectedConditions.presenceOfElementLocated(By.id("smbd-message"))).getText();
                Matcher m = Pattern.compile("Test connection (\\d+) established").matcher(opened);
                assertTrue(m.find(), opened);
                String id = m.group(1);
                // the listener that accepted it shows the event, newest first
                wait.until(d -> !d.findElements(By.cssSelector("#smbd-listener-events tr[data-event=ACCEPTED]")).isEmpty());
                WebElement testRow = wait.until(d -> d.findElements(By.cssSelector("#smbd-connections tr[data-key='mock/" + id + "']"))
                        .stream().findFirst().orElse(null));
                testRow.findElement(By.cssSelector("button.smbd-close")).click();
                wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("smbd-message"), "Connection " + id + " closed"));
                Map<String, Object> json = runtime.json(PASSWORD, null);
                assertTrue(connections(json).stream().noneMatch(c -> ((Number) c.get("id")).longValue() == Long.parseLong(id)
                        && "mock".equals(c.get("provider")) && "ACTIVE".equals(c.get("role"))), json.toString());
                assertTrue(connections(json).stream().anyMatch(c -> ((Number) c.get("messagesSent")).longValue() > 0),
                        "the perf connections go on");
            }
            assertTrue(runtime.process.waitFor(120, TimeUnit.SECONDS), "perf did not finish:\n" + runtime.output());
            assertEquals(0, runtime.process.exitValue(), runtime.output());
        }
    }

    private static WebElement root(WebDriver d) {
        return d.findElement(By.id("smbd"));
    }

    private static WebElement row(WebDriver d, String key) {
        return d.findElement(By.cssSelector("#smbd-connections tr[data-key='" + key + "']"));
    }
}
