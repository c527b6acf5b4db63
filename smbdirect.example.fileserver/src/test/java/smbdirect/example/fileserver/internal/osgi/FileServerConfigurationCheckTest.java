package smbdirect.example.fileserver.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.api.settings.SettingRefusedException;

/** What the file server refuses beyond its metatype, as the settings guard learns it. */
class FileServerConfigurationCheckTest {

    @TempDir
    Path directory;

    private final FileServerConfigurationCheck check = new FileServerConfigurationCheck();

    private Map<String, Object> good() {
        Map<String, Object> m = new HashMap<>();
        m.put("directory", directory.toString());
        m.put("guest", "true");
        m.put("listenAddress", "127.0.0.1:5445");
        return m;
    }

    private SettingRefusedException refusedWith(String key, Object value) {
        Map<String, Object> m = good();
        m.put(key, value);
        return assertThrows(SettingRefusedException.class, () -> check.check(m));
    }

    @Test
    void aGoodConfigurationPasses() {
        check.check(good());
    }

    @Test
    void aDirectoryThatIsMissingRelativeOrAFileIsRefusedWithWhy() throws Exception {
        SettingRefusedException missing = refusedWith("directory", directory.resolve("gone").toString());
        assertEquals("directory", missing.attribute());
        assertEquals(directory.resolve("gone").toString(), missing.value());
        assertEquals("does not exist", missing.reason());
        assertEquals("not an absolute path", refusedWith("directory", "share").reason());
        Path file = Files.createFile(directory.resolve("f"));
        assertEquals("not a directory", refusedWith("directory", file.toString()).reason());
        Map<String, Object> none = good();
        none.remove("directory");
        assertEquals("directory", assertThrows(SettingRefusedException.class, () -> check.check(none)).attribute());
    }

    @Test
    void aListenAddressThatIsNotHostColonPortIsRefused() {
        SettingRefusedException e = refusedWith("listenAddress", "127.0.0.1:54x5");
        assertEquals("listenAddress", e.attribute());
        assertEquals("the port 54x5 is no number", e.reason());
        assertEquals("an IPv6 address goes in brackets: [IPV6]:PORT", refusedWith("listenAddress", "::1:5445").reason());
    }

    @Test
    void logonRulesAcrossUserPasswordAndGuestAreRefusedByTheFieldAtFault() {
        assertEquals("password", refusedWith("user", "alice").attribute());
        assertEquals("user", refusedWith("password", "secret").attribute());
        SettingRefusedException nobody = refusedWith("guest", "false");
        assertEquals("guest", nobody.attribute());
        assertEquals("readOnly", refusedWith("readOnly", "ture").attribute());
    }

    @Test
    void aShareNameWithForbiddenCharactersAndAProviderThatIsNoNameAreRefused() {
        assertEquals("shareName", refusedWith("shareName", "a/b").attribute());
        assertEquals("provider", refusedWith("provider", "(smbdirect.provider=mock)").attribute());
    }
}
