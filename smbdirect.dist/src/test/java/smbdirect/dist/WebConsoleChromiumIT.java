package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A user's path through the Web Console in real headless Chromium: open the SMB Direct status
 * page, change {@code receiveCreditMax} in the Metatype configuration form of
 * {@code smbdirect.transport}, open a test connection from the status page and see the new value
 * negotiated on it; a refused value saved in the form opened from the status page is refused by the
 * form, which says why (the key, the value, the reason) and saves nothing.
 */
class WebConsoleChromiumIT {

    @TempDir
    Path dir;

    @Test
    void receiveCreditMaxChangedInTheConfigurationFormAppliesToANewConnection() throws Exception {
        Chromium.requireInstalled();
        try (RuntimeProcess runtime = RuntimeProcess.start(dir.resolve("runtime"))) {
            runtime.awaitUp(Duration.ofSeconds(60));
            String base = "http://admin:" + runtime.generatedPassword() + "@127.0.0.1:" + runtime.httpPort + "/system/console";
            try (Chromium chromium = Chromium.start(dir.resolve("chromium-profile"), 1280, 800)) {
                WebDriver driver = chromium.driver;
                WebDriverWait wait = chromium.await(Duration.ofSeconds(30));

                driver.get(base + "/smbdirect");
                wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#smbd-settings td.receiveCreditMax")));
                assertEquals("255", driver.findElement(By.cssSelector("#smbd-settings td.receiveCreditMax"))
                        .getAttribute("data-value"));
                assertTrue(driver.findElement(By.id("smbd-listeners")).getText().contains("OPEN"),
                        driver.findElement(By.id("smbd-listeners")).getText());
                // idle charts: an axis from 0 to a few bytes per second says each label once
                wait.until(d -> Boolean.TRUE.equals(((JavascriptExecutor) d).executeScript(
                        "var c = window.Chart && Chart.getChart(document.querySelector('[data-provider=mock] canvas'));"
                        + " return !!c && c.scales.y.ticks.length > 1;")));
                assertEquals("", ((JavascriptExecutor) driver).executeScript(ChartLabels.REPEATED),
                        "y axis labels said twice");
                chromium.screenshot(RuntimeProcess.jar().toAbsolutePath().getParent().resolve("status-page-idle.png"));

                driver.get(base + "/configMgr/smbdirect.transport");
                WebElement field = wait.until(ExpectedConditions.visibilityOfElementLocated(By.name("receiveCreditMax")));
                field.clear();
                field.sendKeys("100");
                WebElement save = driver.findElements(By.cssSelector(".ui-dialog-buttonpane button")).stream()
                        .filter(b -> b.getText().trim().equalsIgnoreCase("Save")).findFirst()
                        .orElseThrow(() -> new AssertionError("no Save button in the configuration dialog"));
                save.click();
                wait.until(ExpectedConditions.invisibilityOfElementLocated(By.name("receiveCreditMax")));

                driver.get(base + "/smbdirect");
                wait.until(ExpectedConditions.attributeToBe(By.cssSelector("#smbd-settings td.receiveCreditMax"),
                        "data-value", "100"));
                driver.findElement(By.id("smbd-connect")).click();
                wait.until(ExpectedConditions.presenceOfElementLocated(By.id("smbd-message")));
                String message = driver.findElement(By.id("smbd-message")).getText();
                assertTrue(message.startsWith("Test connection"), message);

                wait.until(d -> d.findElements(By.cssSelector("#smbd-connections tr[data-connection-id]")).size() == 2);
                List<WebElement> rows = driver.findElements(By.cssSelector("#smbd-connections tr[data-connection-id]"));
                assertEquals(2, rows.size(), "both ends of the test connection are listed");
                for (WebElement row : rows) {
                    assertTrue(row.getText().contains("ESTABLISHED"), row.getText());
                    row.findElement(By.cssSelector("td.toggle button")).click();
                    String key = row.getAttribute("data-key");
                    WebElement details = wait.until(ExpectedConditions.visibilityOfElementLocated(
                            By.cssSelector("tr[data-details-of='" + key + "'] dd.receiveCreditMax")));
                    assertEquals("100", details.getText(), "ReceiveCreditMax negotiated on " + key);
                }

                // a refused value saved in the form opened from the status page: the form says why, over the
                // form still open, and nothing is saved
                driver.findElement(By.id("smbd-edit-settings")).click();
                WebElement credits = wait.until(ExpectedConditions.visibilityOfElementLocated(By.name("receiveCreditMax")));
                credits.clear();
                credits.sendKeys("0");
                driver.findElements(By.cssSelector(".ui-dialog-buttonpane button")).stream()
                        .filter(b -> b.getText().trim().equalsIgnoreCase("Save")).findFirst()
                        .orElseThrow(() -> new AssertionError("no Save button in the configuration dialog")).click();
                WebElement refusal = wait.until(ExpectedConditions.visibilityOfElementLocated(By.xpath(
                        "//div[contains(@class,'ui-dialog')][.//*[contains(@class,'ui-dialog-title')][text()='AJAX Error']]")));
                wait.until(ExpectedConditions.textToBePresentInElement(refusal, "Not saved: receiveCreditMax = 0 refused ("));
                assertTrue(refusal.getText().contains("the settings in force stay as they are"), refusal.getText());
                assertTrue(driver.findElement(By.name("receiveCreditMax")).isDisplayed(), "the form stays open");
                chromium.screenshot(RuntimeProcess.jar().toAbsolutePath().getParent().resolve("configuration-form-refused.png"));
                driver.get(base + "/smbdirect");
                wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#smbd-settings td.receiveCreditMax")));
                assertEquals("100", driver.findElement(By.cssSelector("#smbd-settings td.receiveCreditMax"))
                        .getAttribute("data-value"), "the value in force stays");
                String health = driver.findElement(By.id("smbd-health")).getText();
                assertTrue(!health.contains("receiveCreditMax = 0"), "nothing was saved, so nothing was put back: " + health);
            }
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), runtime.output());
        }
    }
}
