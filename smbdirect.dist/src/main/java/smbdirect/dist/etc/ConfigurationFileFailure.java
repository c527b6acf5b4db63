package smbdirect.dist.etc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns FileInstall's report of a configuration file it could not read ("Failed to install
 * artifact: FILE", "Failed to update artifact FILE") into one line an operator can act on: the file,
 * the failing line with its attribute and value, the reason, and what stays in force. Stateless.
 */
public final class ConfigurationFileFailure {

    private static final Pattern FAILED = Pattern.compile("Failed to (?:install|update) artifact:? (.+\\.(?:cfg|config))");

    private ConfigurationFileFailure() {
    }

    /** The explained line for a FileInstall message about a configuration file, else empty. */
    public static Optional<String> explain(String fileInstallMessage) {
        Matcher m = FAILED.matcher(String.valueOf(fileInstallMessage));
        if (!m.find()) {
            return Optional.empty();
        }
        Path file;
        try {
            file = Path.of(m.group(1).trim());
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
        String why;
        try {
            why = Files.exists(file) ? ConfigurationFile.diagnose(file) : null;
        } catch (IOException e) {
            why = "unreadable: " + e.getMessage();
        }
        return Optional.of("Configuration file " + file + " not applied" + (why == null ? "" : ", " + why)
                + "; the last good settings of its configuration stay in force, the other files are unaffected");
    }
}
