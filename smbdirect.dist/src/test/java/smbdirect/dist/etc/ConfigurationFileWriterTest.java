package smbdirect.dist.etc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Hashtable;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Which configurations get a file readable by its owner only. */
class ConfigurationFileWriterTest {

    @Test
    void aConfigurationHoldingAPasswordGetsAPrivateFile() {
        assertTrue(ConfigurationFileWriter.privateFile("smbdirect.example.fileserver",
                new Hashtable<>(Map.of("user", "alice", "password", "secret"))), "the file server's account");
        assertTrue(ConfigurationFileWriter.privateFile(ConsolePassword.PID, new Hashtable<>(Map.of("username", "admin"))),
                "the Web Console's, whatever it holds");
    }

    @Test
    void aConfigurationWithoutPasswordGetsAPublicFile() {
        assertFalse(ConfigurationFileWriter.privateFile("smbdirect.example.fileserver",
                new Hashtable<>(Map.of("guest", "true", "password", ""))), "an empty password is none");
        assertFalse(ConfigurationFileWriter.privateFile("smbdirect.transport", new Hashtable<>(Map.of("receiveCreditMax", 64))));
    }
}
