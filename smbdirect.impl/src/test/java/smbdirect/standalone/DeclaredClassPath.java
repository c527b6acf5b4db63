package smbdirect.standalone;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import smbdirect.rdma.mock.MockFabric;

/**
 * The runtime class path Maven resolves for smbdirect.impl (written by the build to {@link #FILE}),
 * and a plain Java application started on it in a JVM of its own: that class path, the impl
 * classes, the mock provider and the application's class, nothing else.
 */
final class DeclaredClassPath {

    /** Where the build writes the declared runtime class path. */
    static final Path FILE = Path.of("target", "runtime-classpath.txt");

    private DeclaredClassPath() {
    }

    /** The entries of the declared runtime class path. */
    static List<String> entries() throws IOException {
        List<String> entries = new ArrayList<>();
        for (String e : Files.readString(FILE).strip().split(File.pathSeparator)) {
            if (!e.isBlank()) {
                entries.add(e);
            }
        }
        return entries;
    }

    /** {@code java -cp ...} running {@code main} on {@code entries}, the impl classes and the mock provider. */
    static ProcessBuilder application(List<String> entries, Class<?> main) throws URISyntaxException {
        List<String> classPath = new ArrayList<>(entries);
        classPath.add(location(StandaloneTransport.class));
        classPath.add(location(MockFabric.class));
        classPath.add(location(main));
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                String.join(File.pathSeparator, classPath), main.getName());
    }

    private static String location(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
