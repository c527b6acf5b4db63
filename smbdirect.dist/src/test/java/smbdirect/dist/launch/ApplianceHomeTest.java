package smbdirect.dist.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApplianceHomeTest {

    @TempDir
    Path dir;

    @Test
    void homeDefaultsToTheWorkingDirectoryWithEtcAndDataCache() throws Exception {
        Properties system = new Properties();
        system.setProperty("user.dir", dir.toString());
        Path home = ApplianceHome.prepare(system);
        assertEquals(dir.toAbsolutePath().normalize(), home);
        assertTrue(Files.isDirectory(dir.resolve("etc")));
        assertTrue(Files.isDirectory(dir.resolve("data")));
        assertEquals(home.toString(), system.getProperty(ApplianceHome.HOME));
        assertEquals(home.resolve("data/cache").toString(), system.getProperty(ApplianceHome.STORAGE));
        assertEquals(home.resolve("etc").toString(), system.getProperty(ApplianceHome.WATCHED));
    }

    @Test
    void theWebConsolePasswordBeforeItsConfigurationArrivesIsAHashOfRandomBytesNotFelixsAdmin() throws Exception {
        Properties first = new Properties();
        first.setProperty("user.dir", dir.toString());
        ApplianceHome.prepare(first);
        String hash = first.getProperty(ApplianceHome.CONSOLE_DEFAULT_PASSWORD);
        assertTrue(hash.matches("\\{sha-256\\}[A-Za-z0-9+/]{43}="), hash);
        Properties second = new Properties();
        second.setProperty("user.dir", dir.toString());
        ApplianceHome.prepare(second);
        assertFalse(hash.equals(second.getProperty(ApplianceHome.CONSOLE_DEFAULT_PASSWORD)), "drawn at each start");
        // one the operator gives stays
        Properties given = new Properties();
        given.setProperty("user.dir", dir.toString());
        given.setProperty(ApplianceHome.CONSOLE_DEFAULT_PASSWORD, "{sha-256}operators");
        ApplianceHome.prepare(given);
        assertEquals("{sha-256}operators", given.getProperty(ApplianceHome.CONSOLE_DEFAULT_PASSWORD));
    }

    @Test
    void aRelativeHomeResolvesAgainstTheWorkingDirectoryAndExplicitPathsStay() throws Exception {
        Properties system = new Properties();
        system.setProperty("user.dir", dir.toString());
        system.setProperty(ApplianceHome.HOME, "appliance/../box");
        system.setProperty(ApplianceHome.STORAGE, "/var/lib/smbdirect/cache");
        Path home = ApplianceHome.prepare(system);
        assertEquals(dir.resolve("box"), home);
        assertEquals(dir.resolve("box").toString(), system.getProperty(ApplianceHome.HOME));
        assertEquals("/var/lib/smbdirect/cache", system.getProperty(ApplianceHome.STORAGE));
        assertEquals(dir.resolve("box/etc").toString(), system.getProperty(ApplianceHome.WATCHED));
    }

    @Test
    void aPerfRunKeepsItsFrameworkStateApartAndOpensNoWebConsole() throws Exception {
        Files.createDirectories(dir.resolve("etc"));
        Properties system = new Properties();
        system.setProperty("user.dir", dir.toString());
        Path home = ApplianceHome.prepare(system, List.of("perf", "--provider", "iwarp", "--listen", "127.0.0.1:5445"));
        assertEquals("perf", system.getProperty(ApplianceHome.BATCH));
        Path storage = Path.of(system.getProperty(ApplianceHome.STORAGE));
        assertFalse(storage.startsWith(home), "two perf processes in one home must not share " + storage);
        assertTrue(Files.isDirectory(storage.getParent()));
        assertEquals("false", system.getProperty(ApplianceHome.HTTP_ENABLE));
        assertEquals(home.resolve("etc").toString(), system.getProperty(ApplianceHome.WATCHED), "perf reads etc/");
    }

    @Test
    void aPerfRunInAHomeWithoutEtcCreatesNeitherEtcNorDataAndWatchesAnEmptyDirectoryOfItsOwn() throws Exception {
        Properties system = new Properties();
        system.setProperty("user.dir", dir.toString());
        ApplianceHome.prepare(system, List.of("perf", "--count", "10"));
        Path watched = Path.of(system.getProperty(ApplianceHome.WATCHED));
        assertFalse(watched.startsWith(dir), "FileInstall creates what it watches: " + watched);
        assertTrue(Files.isDirectory(watched));
        try (var left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "nothing created in the home");
        }
    }

    @Test
    void aPerfRunWithItsWebConsoleCreatesEtcAndDataForItsPassword() throws Exception {
        Properties system = new Properties();
        system.setProperty("user.dir", dir.toString());
        system.setProperty(ApplianceHome.HTTP_PORT, "9090");
        ApplianceHome.prepare(system, List.of("perf"));
        assertEquals(dir.resolve("etc").toString(), system.getProperty(ApplianceHome.WATCHED));
        assertTrue(Files.isDirectory(dir.resolve("etc")));
        assertTrue(Files.isDirectory(dir.resolve("data")));
    }

    @Test
    void anotherVersionOfTheJarStartsTheFrameworkStateAfreshAndTheSameJarKeepsIt() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        String v1 = "jar/smbdirect.api-1.0.0.jar,jar/smbdirect.impl-1.0.0.jar";
        assertFalse(ApplianceHome.resetCacheOfAnotherJar(data, v1), "a first start has no framework state");
        Path kept = Files.createDirectories(data.resolve("cache/bundle38/data/last-good"));
        assertFalse(ApplianceHome.resetCacheOfAnotherJar(data, v1), "the same jar again");
        assertTrue(Files.isDirectory(kept));
        assertFalse(ApplianceHome.resetCacheOfAnotherJar(data, null), "not started from the jar: nothing known");
        assertTrue(Files.isDirectory(kept));

        assertTrue(ApplianceHome.resetCacheOfAnotherJar(data, "jar/smbdirect.api-1.1.0.jar,jar/smbdirect.impl-1.1.0.jar"));
        assertFalse(Files.exists(data.resolve("cache")), "the old bundles would run beside the new ones");
        assertEquals("jar/smbdirect.api-1.1.0.jar,jar/smbdirect.impl-1.1.0.jar",
                Files.readString(data.resolve(ApplianceHome.CACHE_BUNDLES)));
    }

    @Test
    void servingKeepsTheHomesDataCacheAndTheWebConsole() throws Exception {
        Properties system = new Properties();
        system.setProperty("user.dir", dir.toString());
        Path home = ApplianceHome.prepare(system, List.of());
        assertNull(system.getProperty(ApplianceHome.BATCH));
        assertNull(system.getProperty(ApplianceHome.HTTP_ENABLE));
        assertEquals(home.resolve("data/cache").toString(), system.getProperty(ApplianceHome.STORAGE));
    }

    @Test
    void theProgramArgumentsFollowTheJar() {
        assertEquals(List.of("perf", "--count", "10"), ApplianceHome.programArguments(
                List.of("-Dorg.osgi.service.http.port=9090", "-jar", "smbdirect.jar", "perf", "--count", "10")));
        assertEquals(List.of(), ApplianceHome.programArguments(List.of("-jar", "smbdirect.jar")));
        assertEquals(List.of(), ApplianceHome.programArguments(List.of("-cp", "x", "Main")));
    }

    @Test
    void aPerfRunWithAnExplicitConsolePortKeepsItsWebConsole() throws Exception {
        Properties system = new Properties();
        system.setProperty("user.dir", dir.toString());
        system.setProperty(ApplianceHome.HTTP_PORT, "9090");
        ApplianceHome.prepare(system, List.of("perf", "--duration", "60s"));
        assertEquals("perf", system.getProperty(ApplianceHome.BATCH));
        assertNull(system.getProperty(ApplianceHome.HTTP_ENABLE), "the status page can watch the run");
    }

    @Test
    void aPerfRunLogsErrorsOnlyUnlessVerboseOrALevelIsGiven() throws Exception {
        Properties quiet = new Properties();
        quiet.setProperty("user.dir", dir.toString());
        ApplianceHome.prepare(quiet, List.of("perf", "--count", "10"));
        assertEquals("error", quiet.getProperty(ApplianceHome.LOG_LEVEL));
        assertEquals("1", quiet.getProperty(ApplianceHome.EVENT_ADMIN_LOG_LEVEL), "EventAdmin: errors only");
        String batchConfig = Files.readString(Path.of(quiet.getProperty(ApplianceHome.LOGBACK_CONFIG)));
        assertTrue(batchConfig.contains("<root level=\"ERROR\">"), batchConfig);
        for (String logger : ApplianceHome.LEVELLED_LOGGERS) {
            assertTrue(batchConfig.contains("<logger name=\"" + logger + "\" level=\"ERROR\"/>"), batchConfig);
        }
        assertFalse(batchConfig.contains("RollingFileAppender"), "a batch run writes no log file:\n" + batchConfig);
        assertFalse(Files.exists(dir.resolve("etc/logback.xml")), "a batch run writes nothing to etc/");
        for (String flag : new String[] {"-v", "--verbose"}) {
            Properties verbose = new Properties();
            verbose.setProperty("user.dir", dir.toString());
            ApplianceHome.prepare(verbose, List.of("perf", flag, "--count", "10"));
            assertNull(verbose.getProperty(ApplianceHome.LOG_LEVEL), "the runtime's own level (info) with " + flag);
        }
        Properties given = new Properties();
        given.setProperty("user.dir", dir.toString());
        given.setProperty(ApplianceHome.LOG_LEVEL, "debug");
        ApplianceHome.prepare(given, List.of("perf"));
        assertEquals("debug", given.getProperty(ApplianceHome.LOG_LEVEL), "a level on the command line stays");
    }

    @Test
    void helpIsABatchRunOfItsOwnAndServingKeepsTheRuntimesLog() throws Exception {
        for (String help : new String[] {"help", "-h", "--help"}) {
            Properties system = new Properties();
            system.setProperty("user.dir", dir.toString());
            ApplianceHome.prepare(system, List.of(help));
            assertEquals("help", system.getProperty(ApplianceHome.BATCH), help);
            assertEquals("false", system.getProperty(ApplianceHome.HTTP_ENABLE), help);
            assertEquals("error", system.getProperty(ApplianceHome.LOG_LEVEL), help);
        }
        Properties serve = new Properties();
        serve.setProperty("user.dir", dir.toString());
        ApplianceHome.prepare(serve, List.of());
        assertNull(serve.getProperty(ApplianceHome.LOG_LEVEL));
    }

    @Test
    void servingWritesAnEditableLogbackConfigurationWithARotatedFileInTheHomeOnce() throws Exception {
        Properties system = new Properties();
        system.setProperty("user.dir", dir.toString());
        Path home = ApplianceHome.prepare(system, List.of());
        Path config = home.resolve("etc/logback.xml");
        assertEquals(config.toString(), system.getProperty(ApplianceHome.LOGBACK_CONFIG));
        String xml = Files.readString(config);
        assertTrue(xml.contains("<file>${smbdirect.home}/data/log/smbdirect.log</file>"), xml);
        assertTrue(xml.contains("SizeAndTimeBasedRollingPolicy"), xml);
        assertTrue(xml.contains("<root level=\"${smbdirect.log.level:-INFO}\">"), xml);
        assertTrue(xml.contains("LevelChangePropagator"), "the JDK logging follows the levels:\n" + xml);
        for (String logger : ApplianceHome.LEVELLED_LOGGERS) {
            assertTrue(xml.contains("<logger name=\"" + logger + "\" level=\"WARN\"/>"), xml);
        }
        Files.writeString(config, "<configuration/>\n");
        Properties again = new Properties();
        again.setProperty("user.dir", dir.toString());
        ApplianceHome.prepare(again, List.of());
        assertEquals("<configuration/>\n", Files.readString(config), "the operator's edits stay");
    }

    @Test
    void onJdk24AndLaterWithoutTheUnsafeOptionTheRuntimeIsRelaunchedWithIt() {
        List<String> args = List.of("-Dsmbdirect.home=/srv/a", "-jar", "smbdirect.jar", "perf", "--help");
        Properties none = new Properties();
        assertTrue(ApplianceHome.relaunchNeeded(24, args, none, null));
        assertTrue(ApplianceHome.relaunchNeeded(25, args, none, "-Xmx1g"));
        assertEquals(List.of("/jdk/bin/java", "--sun-misc-unsafe-memory-access=allow", "-Dsmbdirect.relaunchedBy=42",
                "-Dsmbdirect.home=/srv/a", "-jar", "smbdirect.jar", "perf", "--help"),
                ApplianceHome.relaunchCommand("/jdk/bin/java", args, 42));
    }

    @Test
    void noRelaunchBeforeJdk24WithTheOptionGivenOnceRelaunchedWhenTurnedOffOrWithoutACommandLine() {
        List<String> args = List.of("-jar", "smbdirect.jar");
        Properties none = new Properties();
        assertFalse(ApplianceHome.relaunchNeeded(17, args, none, null));
        assertFalse(ApplianceHome.relaunchNeeded(23, args, none, null));
        assertFalse(ApplianceHome.relaunchNeeded(25, List.of("--sun-misc-unsafe-memory-access=allow", "-jar", "x.jar"),
                none, null));
        assertFalse(ApplianceHome.relaunchNeeded(25, List.of("--sun-misc-unsafe-memory-access=warn", "-jar", "x.jar"),
                none, null));
        assertFalse(ApplianceHome.relaunchNeeded(25, args, none, "--sun-misc-unsafe-memory-access=allow"));
        Properties relaunched = new Properties();
        relaunched.setProperty("smbdirect.relaunchedBy", "42");
        assertFalse(ApplianceHome.relaunchNeeded(25, args, relaunched, null));
        Properties off = new Properties();
        off.setProperty("smbdirect.relaunch", "false");
        assertFalse(ApplianceHome.relaunchNeeded(25, args, off, null));
        assertFalse(ApplianceHome.relaunchNeeded(25, null, none, null));
    }
}
