package smbdirect.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import smbdirect.testsupport.Judges;

/** Headless Chromium driven by chromedriver (Debian packages chromium and chromium-driver). */
final class Chromium implements AutoCloseable {

    static final Path BINARY = Path.of(System.getProperty("chromium.binary", "/usr/bin/chromium"));
    static final Path DRIVER = Path.of(System.getProperty("chromedriver.binary", "/usr/bin/chromedriver"));

    final WebDriver driver;

    private Chromium(WebDriver driver) {
        this.driver = driver;
    }

    /** Unless Chromium and chromedriver are installed, a missing judge ({@link Judges#missing}). */
    static void requireInstalled() {
        Judges.require(Files.isExecutable(BINARY) && Files.isExecutable(DRIVER), "Chromium or chromedriver missing ("
                + BINARY + ", " + DRIVER + "): apt-get install chromium chromium-driver");
    }

    /** A headless browser with a window of {@code width} x {@code height} CSS pixels and its own profile. */
    static Chromium start(Path profile, int width, int height) {
        requireInstalled();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(BINARY.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1",
                "--window-size=" + width + "," + height, "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort().build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().window().setSize(new Dimension(width, height));
        return new Chromium(driver);
    }

    WebDriverWait await(Duration timeout) {
        return new WebDriverWait(driver, timeout);
    }

    /** Saves what the window shows as a PNG. */
    void screenshot(Path png) throws IOException {
        Files.createDirectories(png.getParent());
        Files.write(png, ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
    }

    @Override
    public void close() {
        driver.quit();
    }
}
