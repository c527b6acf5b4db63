package smbdirect.dist.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Lays out the runtime's home directory before the OSGi launcher starts, the way Karaf does:
 * {@code etc/} holds the configuration files (read and watched by Apache Felix FileInstall),
 * {@code data/} the framework state ({@code data/cache}: installed bundles, their data areas,
 * Config Admin's store).
 *
 * <p>The home is {@code -Dsmbdirect.home=DIR}, by default the directory the runtime is started
 * from. The executable jar names this class as its {@code Launcher-Agent-Class}, so the JVM runs
 * {@link #agentmain(String)} before the launcher's {@code main}: it creates the directories and
 * sets the system properties the launcher and FileInstall read ({@code launch.storage.dir},
 * {@code felix.fileinstall.dir}) unless they are set on the command line already, and
 * {@value #HOME} to the absolute home for the bundles.
 *
 * <p>Runs before any logging framework exists: a home that cannot be created ends the process with
 * one line on standard error and exit status 1.
 */
public final class ApplianceHome {

    /** System and framework property naming the home directory (absolute once prepared). */
    public static final String HOME = "smbdirect.home";
    /** The bnd launcher's framework storage property. */
    static final String STORAGE = "launch.storage.dir";
    /** FileInstall's watched directory. */
    static final String WATCHED = "felix.fileinstall.dir";

    private ApplianceHome() {
    }

    /** Entry point of {@code Launcher-Agent-Class}: runs before the launcher's main method. */
    public static void agentmain(String args) {
        try {
            prepare(System.getProperties());
        } catch (IOException | InvalidPathException e) {
            System.err.println("smbdirect: cannot prepare the home directory: " + e.getMessage());
            System.exit(1);
        }
    }

    /**
     * Resolves the home against {@code user.dir}, creates {@code etc/} and {@code data/}, and sets
     * {@value #HOME}, {@value #STORAGE} and {@value #WATCHED} in {@code system} (the latter two only
     * when absent).
     *
     * @return the absolute home
     */
    static Path prepare(Properties system) throws IOException {
        Path cwd = Path.of(system.getProperty("user.dir", "."));
        String configured = system.getProperty(HOME);
        Path home = (configured == null || configured.isBlank() ? cwd : cwd.resolve(configured.trim()))
                .toAbsolutePath().normalize();
        Path etc = Files.createDirectories(home.resolve("etc"));
        Path data = Files.createDirectories(home.resolve("data"));
        system.setProperty(HOME, home.toString());
        if (system.getProperty(STORAGE) == null) {
            system.setProperty(STORAGE, data.resolve("cache").toString());
        }
        if (system.getProperty(WATCHED) == null) {
            system.setProperty(WATCHED, etc.toString());
        }
        return home;
    }
}
