package smbdirect.dist.etc;

import java.nio.file.Path;

import org.osgi.framework.BundleContext;

import smbdirect.dist.launch.ApplianceHome;

/** Where the runtime's configuration files are: FileInstall's watched directory. Stateless. */
public final class Etc {

    static final String WATCHED = "felix.fileinstall.dir";

    private Etc() {
    }

    /** The absolute {@code etc/} directory (FileInstall's {@code felix.fileinstall.dir}). */
    public static Path directory(BundleContext context) {
        return home(context).resolve(property(context, WATCHED, "etc")).toAbsolutePath().normalize();
    }

    /** The absolute home directory ({@code smbdirect.home}, else the working directory). */
    public static Path home(BundleContext context) {
        return Path.of(property(context, "user.dir", ".")).resolve(property(context, ApplianceHome.HOME, "."))
                .toAbsolutePath().normalize();
    }

    /**
     * Whether this process is a batch run ({@code perf}): it reads {@code etc/} but writes nothing
     * there and opens no Web Console (see {@link ApplianceHome}).
     */
    public static boolean batch(BundleContext context) {
        String v = context.getProperty(ApplianceHome.BATCH);
        return v != null && !v.isBlank();
    }

    /** {@code file} relative to the home when it lies inside it (for log lines), else absolute. */
    public static String describe(BundleContext context, Path file) {
        Path home = home(context);
        Path abs = file.toAbsolutePath().normalize();
        return abs.startsWith(home) ? home.relativize(abs).toString() : abs.toString();
    }

    private static String property(BundleContext context, String key, String fallback) {
        String v = context.getProperty(key);
        return v == null || v.isBlank() ? fallback : v.trim();
    }
}
