package smbdirect.dist.etc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigurationFileTest {

    @TempDir
    Path etc;

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void aWriteKeepsCommentsOrderAndThePlainStyleOfAnOperatorsFile() throws Exception {
        Path f = etc.resolve("smbdirect.transport.cfg");
        Files.writeString(f, "# tuned for the lab\nreceiveCreditMax = 255\n\n# shorter keepalives\nkeepaliveIntervalSeconds = 30\n"
                + "maxSendSize = 1364\n", StandardCharsets.ISO_8859_1);
        // what the Web Console hands over: typed values, identity properties, one attribute removed
        assertTrue(ConfigurationFile.write(f, map("service.pid", "smbdirect.transport", "felix.fileinstall.filename",
                "file:" + f, "receiveCreditMax", 100, "keepaliveIntervalSeconds", 30L), List.of("unused"), false));
        assertEquals("# tuned for the lab\nreceiveCreditMax = 100\n\n# shorter keepalives\nkeepaliveIntervalSeconds = 30\n",
                Files.readString(f, StandardCharsets.ISO_8859_1));
        assertEquals(map("receiveCreditMax", "100", "keepaliveIntervalSeconds", "30"), ConfigurationFile.read(f));
        assertFalse(ConfigurationFile.write(f, map("receiveCreditMax", "100", "keepaliveIntervalSeconds", 30L), List.of(), false),
                "nothing to change: the file is not touched");
    }

    @Test
    void aNewFileStartsWithItsHeaderAndCommentsAndAPrivateOneIsOwnerOnly() throws Exception {
        Path f = etc.resolve("x.cfg");
        ConfigurationFile.write(f, map("a", "1", "b", "(x=y)"), List.of("first", "second"), Map.of("b", List.of("", "the b")), true);
        assertEquals("# first\n# second\n\na = 1\n\n# the b\nb = (x=y)\n", Files.readString(f));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        ConfigurationFile.write(etc.resolve("y.cfg"), map("a", "1"), List.of(), false);
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(etc.resolve("y.cfg"))));
    }

    @Test
    void aTypedFileStaysTypedAndMultipleValuesMakeAFileTyped() throws Exception {
        Path typed = etc.resolve("typed.cfg");
        Files.writeString(typed, "port = I\"445\"\nname = \"files\"\n");
        ConfigurationFile.write(typed, map("port", 4450, "name", "files"), List.of(), false);
        assertEquals(map("port", 4450, "name", "files"), ConfigurationFile.read(typed));
        Path multi = etc.resolve("multi.cfg");
        ConfigurationFile.write(multi, map("hosts", new String[] { "a", "b" }, "n", 1), List.of(), false);
        Map<String, Object> back = ConfigurationFile.read(multi);
        assertEquals(List.of("a", "b"), List.of((String[]) back.get("hosts")));
        assertEquals(1, back.get("n"));
    }

    @Test
    void fileInstallReadsBackWhatIsWrittenWithItsTypes() throws Exception {
        // what the Web Console saves for its own configuration: strings, a boolean, a Vector of strings
        Path f = etc.resolve("org.apache.felix.webconsole.internal.servlet.OsgiManager.cfg");
        Files.writeString(f, "# header\nusername = admin\npassword = {sha-256}abc-1000-xyz=\n");
        ConfigurationFile.write(f, map("username", "admin", "password", "{sha-256}abc-1000-xyz=", "plugins",
                new java.util.Vector<>(List.of("a.B", "c.D")), "secret.heuristic.enabled", false, "port", 8080),
                List.of(), false);
        // FileInstall 3.7.4's own reader (its shaded copy of Felix utils)
        org.apache.felix.fileinstall.shaded.util.properties.TypedProperties read =
                new org.apache.felix.fileinstall.shaded.util.properties.TypedProperties((name, key, value) -> null);
        try (var r = Files.newBufferedReader(f, StandardCharsets.ISO_8859_1)) {
            read.load(r);
        }
        assertEquals("admin", read.get("username"));
        assertEquals(List.of("a.B", "c.D"), List.of((String[]) read.get("plugins")));
        assertEquals(Boolean.FALSE, read.get("secret.heuristic.enabled"));
        assertEquals(8080, read.get("port"));
        // writing back what was read keeps the values, and settles (no write loop with FileInstall)
        Map<String, Object> values = ConfigurationFile.read(f);
        ConfigurationFile.write(f, values, List.of(), false);
        assertEquals(values.keySet(), ConfigurationFile.read(f).keySet());
        assertFalse(ConfigurationFile.write(f, ConfigurationFile.read(f), List.of(), false));
    }

    @Test
    void theFileIsReplacedByARenameNeverRewrittenInPlace() throws Exception {
        Path f = etc.resolve("smbdirect.listener-default.cfg");
        ConfigurationFile.write(f, map("name", "default", "port", "445"), List.of("the default listener"), false);
        String before = Files.readString(f);
        try (InputStream reader = Files.newInputStream(f)) {
            ConfigurationFile.write(f, map("name", "default", "port", "4450"), List.of(), false);
            // a reader that opened the old file still reads it whole: the new content is another file
            assertEquals(before, new String(reader.readAllBytes(), StandardCharsets.ISO_8859_1));
        }
        assertTrue(Files.readString(f).contains("port = 4450"));
        try (var left = Files.list(etc)) {
            assertEquals(List.of(f), left.toList(), "no temporary file is left behind");
        }
    }

    @Test
    void aWriteThatFailsHalfWayLeavesTheOldFileWholeAndNoTemporaryFile() throws Exception {
        Path f = etc.resolve("smbdirect.transport.cfg");
        ConfigurationFile.write(f, map("receiveCreditMax", "255", "maxSendSize", "1364"), List.of("header"), false);
        byte[] before = Files.readAllBytes(f);
        java.io.IOException failure = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> ConfigurationFile.replace(f, ch -> {
                    ch.write(java.nio.ByteBuffer.wrap("receiveCreditMax = 1".getBytes(StandardCharsets.ISO_8859_1)));
                    throw new java.io.IOException("No space left on device");
                }, false));
        assertEquals("No space left on device", failure.getMessage());
        assertEquals(new String(before, StandardCharsets.ISO_8859_1), Files.readString(f, StandardCharsets.ISO_8859_1));
        try (var left = Files.list(etc)) {
            assertEquals(List.of(f), left.toList());
        }
    }

    @Test
    void diagnoseNamesTheLineTheAttributeAndTheValueFileInstallCannotRead() throws Exception {
        Path escape = etc.resolve("escape.cfg");
        Files.writeString(escape, "# c\nname = fourth\nbad = \\uZZZZ\n");
        assertEquals("line 3: bad = \\uZZZZ: a \\u escape needs four hex digits", ConfigurationFile.diagnose(escape));
        Path typed = etc.resolve("typed.cfg");
        Files.writeString(typed, "name = \"x\"\nport = I\"44x7\"\n");
        assertEquals("line 2: port = I\"44x7\": For input string: \"44x7\"", ConfigurationFile.diagnose(typed));
        Path fine = etc.resolve("fine.cfg");
        Files.writeString(fine, "path = C:\\\\\\\\u0041\nname = \\u0041\n");
        assertNull(ConfigurationFile.diagnose(fine));
    }

    @Test
    void aFileInstallFailureBecomesOneLineNamingFileAttributeAndValue() throws Exception {
        Path escape = etc.resolve("smbdirect.listener-x.cfg");
        Files.writeString(escape, "port = 44\\u12\n");
        assertEquals("Configuration file " + escape + " not applied, line 1: port = 44\\u12: a \\u escape needs four hex"
                + " digits; the last good settings of its configuration stay in force, the other files are unaffected",
                ConfigurationFileFailure.explain("Failed to install artifact: " + escape).orElseThrow());
        assertTrue(ConfigurationFileFailure.explain("Failed to update artifact " + escape).isPresent());
        assertTrue(ConfigurationFileFailure.explain("Failed to install artifact: /x/bundle.jar").isEmpty());
    }
}
