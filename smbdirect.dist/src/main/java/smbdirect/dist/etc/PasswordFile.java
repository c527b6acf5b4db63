package smbdirect.dist.etc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A secret in a file only its owner can read: created with mode 600 from the start (no moment in
 * which another user could open it), written completely under a temporary name and renamed into
 * place. Lines starting with {@code #} are comments; the secret is the first other line.
 * Stateless and thread-safe.
 */
final class PasswordFile {

    static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private PasswordFile() {
    }

    /** Writes {@code lines} to {@code file} (mode 600 on POSIX file systems), replacing it. */
    static void write(Path file, List<String> lines) throws IOException {
        Files.createDirectories(file.getParent());
        Path temp = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.deleteIfExists(temp);
        boolean posix = Files.getFileStore(file.getParent()).supportsFileAttributeView("posix");
        FileAttribute<?>[] attributes = posix ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
                : new FileAttribute<?>[0];
        try {
            Files.createFile(temp, attributes);
        } catch (FileAlreadyExistsException e) {
            throw new IOException(temp + " appeared while it was being created", e);
        }
        Files.write(temp, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8),
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.SYNC);
        if (!posix) {
            java.io.File f = temp.toFile();
            f.setReadable(false, false);
            f.setReadable(true, true);
            f.setWritable(false, false);
            f.setWritable(true, true);
        }
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
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
