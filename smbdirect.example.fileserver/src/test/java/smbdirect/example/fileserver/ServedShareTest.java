package smbdirect.example.fileserver;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The setup of the end-to-end tests: a file server over the mock fabric serving {@code share} in a
 * fresh temporary directory before each test, closed after it. A test that needs other settings
 * closes {@link #fixture} and starts its own in its place (it is closed after the test as well).
 */
abstract class ServedShareTest {

    @TempDir
    Path temp;
    Path shareDir;
    FileServerFixture fixture;

    @BeforeEach
    void startServer() throws Exception {
        shareDir = Files.createDirectory(temp.resolve("share"));
        fixture = FileServerFixture.start(FileServerFixture.settings(shareDir));
    }

    @AfterEach
    void stopServer() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }
}
