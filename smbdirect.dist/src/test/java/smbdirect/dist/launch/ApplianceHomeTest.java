package smbdirect.dist.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
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
}
