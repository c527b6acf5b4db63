package smbdirect.dist.etc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A secret in a file only its owner can read: written completely under a temporary name created
 * with mode 600 (no moment in which another user could open it) and renamed into place
 * ({@link ConfigurationFile#replaceSecret}). Lines starting with {@code #} are comments; the secret is the
 * first other line. Stateless and thread-safe.
 */
final class PasswordFile {

    private PasswordFile() {
    }

    /** Writes {@code lines} to {@code file} (mode 600 on POSIX file systems), replacing it. */
    static void write(Path file, List<String> lines) throws IOException {
        ConfigurationFile.replaceSecret(file, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** The secret in {@code file}, empty when there is no such file or it holds none. */
    static Optional<String> read(Path file) throws IOException {
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String t = line.trim();
                if (!t.isEmpty() && !t.startsWith("#")) {
                    return Optional.of(t);
                }
            }
            return Optional.empty();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }
}
