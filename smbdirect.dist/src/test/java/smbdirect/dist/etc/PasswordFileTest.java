package smbdirect.dist.etc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PasswordFileTest {

    @TempDir
    Path dir;

    @Test
    void theSecretIsWrittenReadableByItsOwnerOnlyAndReadBackPastTheComments() throws Exception {
        Path file = dir.resolve("data/webconsole-password");
        PasswordFile.write(file, List.of("# generated", "# change it", "k7Hq2-9xVb4-TmPw3-c8RzN"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(Optional.of("k7Hq2-9xVb4-TmPw3-c8RzN"), PasswordFile.read(file));
        assertEquals(List.of("webconsole-password"), Files.list(file.getParent()).map(p -> p.getFileName().toString())
                .toList(), "no temporary file left");
    }

    @Test
    void replacingASecretThatOthersCouldReadLeavesItOwnerOnly() throws Exception {
        Path file = dir.resolve("webconsole-password");
        Files.writeString(file, "old\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        PasswordFile.write(file, List.of("new"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(Optional.of("new"), PasswordFile.read(file));
    }

    @Test
    void noFileOrOnlyCommentsIsNoSecret() throws Exception {
        assertEquals(Optional.empty(), PasswordFile.read(dir.resolve("absent")));
        Path comments = dir.resolve("comments");
        Files.writeString(comments, "# nothing\n\n");
        assertEquals(Optional.empty(), PasswordFile.read(comments));
    }
}
