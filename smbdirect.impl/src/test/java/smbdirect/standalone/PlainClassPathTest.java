package smbdirect.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The transport runs on a plain class path, outside OSGi: {@link PlainJavaApplication} in a JVM of
 * its own whose class path is exactly the runtime class path Maven resolves for smbdirect.impl
 * (written by the build to {@code target/runtime-classpath.txt}), the impl classes, the mock
 * provider and the application class; no OSGi framework, no test scope jar. A runtime dependency
 * the poms forgot shows here as a {@code NoClassDefFoundError}.
 */
class PlainClassPathTest {

    @Test
    void bothRolesAndRdmaRunOnTheDeclaredRuntimeClassPath() throws Exception {
        assertTrue(Files.isRegularFile(DeclaredClassPath.FILE), "the build writes " + DeclaredClassPath.FILE);
        List<String> entries = DeclaredClassPath.entries();
        assertTrue(entries.stream().anyMatch(e -> e.contains("org.osgi.dto")),
                "org.osgi.dto is a declared runtime dependency: " + entries);
        assertFalse(entries.stream().anyMatch(e -> e.contains("osgi.core")), "osgi.core stays compile-only");

        Process p = DeclaredClassPath.application(entries, PlainJavaApplication.class).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out;
        try (var in = p.getInputStream()) {
            out = in.readAllBytes();
        }
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the application ends");
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), text);
        assertTrue(text.contains("refused: maxReceiveSize=64 refused"), text);
        assertTrue(text.contains("passive role: read 65536 wrote 65536"), text);
        assertTrue(text.contains("PLAIN CLASS PATH OK"), text);
    }
}
