package smbdirect.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import smbdirect.rdma.mock.MockFabric;

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
        Path declared = Path.of("target", "runtime-classpath.txt");
        assertTrue(Files.isRegularFile(declared), "the build writes " + declared);
        List<String> entries = new ArrayList<>();
        for (String e : Files.readString(declared).strip().split(File.pathSeparator)) {
            if (!e.isBlank()) {
                entries.add(e);
            }
        }
        assertTrue(entries.stream().anyMatch(e -> e.contains("org.osgi.dto")),
                "org.osgi.dto is a declared runtime dependency: " + entries);
        assertFalse(entries.stream().anyMatch(e -> e.contains("osgi.core")), "osgi.core stays compile-only");
        entries.add(location(StandaloneTransport.class));
        entries.add(location(MockFabric.class));
        entries.add(location(PlainJavaApplication.class));

        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-cp", String.join(File.pathSeparator, entries),
                PlainJavaApplication.class.getName()).redirectErrorStream(true).start();
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

    private static String location(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
