package smbdirect.impl.osgi.settings;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collections;
import java.util.Dictionary;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.felix.utils.properties.ConfigurationHandler;
import org.osgi.framework.BundleContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where {@link SettingsGuard} keeps the last good values of each configuration (the bundle's data
 * area, one file per PID in Config Admin's typed format) and how they are read back.
 *
 * <p>The components of this bundle read them themselves when a configuration is refused at their
 * first activation: Declarative Services hands them their configurations before the guard of the
 * same bundle is active, so at a start over a file edited by hand with a refused value the guard
 * has not yet put the last good values in its place. Thread-safe (stateless).
 */
public final class LastGoodSettings {

    private static final Logger LOG = LoggerFactory.getLogger(LastGoodSettings.class);
    /** The folder of the bundle's data area that holds them. */
    static final String FOLDER = "last-good";

    private LastGoodSettings() {
    }

    /** The folder that holds them in {@code context}'s data area; null where the framework has no storage. */
    public static Path folder(BundleContext context) {
        File data = context == null ? null : context.getDataFile(FOLDER);
        return data == null ? null : data.toPath();
    }

    /** The file of {@code pid}'s last good values in {@code folder}. */
    static Path file(Path folder, String pid) {
        return folder.resolve(pid.replaceAll("[^A-Za-z0-9._~-]", "_") + ".config");
    }

    /**
     * The last good values of {@code pid} kept in {@code folder} (null: none kept, no folder, or
     * unreadable, which is logged).
     */
    public static Map<String, Object> read(Path folder, String pid) {
        if (folder == null || pid == null) {
            return null;
        }
        Path file = file(folder, pid);
        if (!Files.exists(file)) {
            return null;
        }
        try (InputStream in = Files.newInputStream(file)) {
            @SuppressWarnings("unchecked")
            Dictionary<String, Object> d = ConfigurationHandler.read(in);
            return toMap(d);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Last good configuration {} unreadable: {}", file, e.toString());
            return null;
        }
    }

    /** Keeps {@code values} as the last good of {@code pid} in {@code folder}, replacing the file at once. */
    public static void write(Path folder, String pid, Dictionary<String, Object> values) throws IOException {
        Path file = file(folder, pid);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            ConfigurationHandler.write(out, values);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    static Map<String, Object> toMap(Dictionary<String, ?> d) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (d != null) {
            for (String k : Collections.list(d.keys())) {
                m.put(k, d.get(k));
            }
        }
        return m;
    }
}
