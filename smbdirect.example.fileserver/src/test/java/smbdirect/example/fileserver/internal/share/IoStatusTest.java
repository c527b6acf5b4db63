package smbdirect.example.fileserver.internal.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.example.fileserver.internal.smb2.NtStatus;
import smbdirect.example.fileserver.internal.smb2.SmbStatusException;

/** File-system failures become the NTSTATUS values Windows file systems answer with ([MS-ERREF] 2.3.1). */
class IoStatusTest {

    private static String status(IOException e) {
        return NtStatus.name(IoStatus.statusOf(e));
    }

    @Test
    void exceptionTypesMapToTheirStatus() {
        assertEquals("STATUS_OBJECT_NAME_NOT_FOUND", status(new NoSuchFileException("f")));
        assertEquals("STATUS_OBJECT_NAME_COLLISION", status(new FileAlreadyExistsException("f")));
        assertEquals("STATUS_DIRECTORY_NOT_EMPTY", status(new DirectoryNotEmptyException("d")));
        assertEquals("STATUS_ACCESS_DENIED", status(new AccessDeniedException("f")));
        assertEquals("STATUS_NOT_A_DIRECTORY", status(new NotDirectoryException("f")));
        assertEquals("STATUS_FILE_CLOSED", status(new ClosedChannelException()));
        assertEquals("STATUS_FILE_CLOSED", status(new AsynchronousCloseException()));
    }

    @Test
    void operatingSystemReasonsMapToTheirStatus() {
        assertEquals("STATUS_DISK_FULL", status(new FileSystemException("f", null, "No space left on device")));
        assertEquals("STATUS_DISK_FULL", status(new FileSystemException("f", null, "Disk quota exceeded")));
        assertEquals("STATUS_DISK_FULL", status(new IOException("No space left on device")));
        assertEquals("STATUS_MEDIA_WRITE_PROTECTED", status(new FileSystemException("f", null, "Read-only file system")));
        assertEquals("STATUS_ACCESS_DENIED", status(new FileSystemException("f", null, "Operation not permitted")));
        assertEquals("STATUS_FILE_IS_A_DIRECTORY", status(new FileSystemException("f", null, "Is a directory")));
        assertEquals("STATUS_OBJECT_NAME_INVALID", status(new FileSystemException("f", null, "File name too long")));
        assertEquals("STATUS_INSUFFICIENT_RESOURCES", status(new FileSystemException("f", null, "Too many open files")));
        assertEquals("STATUS_INVALID_PARAMETER", status(new FileSystemException("f", null, "Invalid argument")));
        assertEquals("STATUS_UNSUCCESSFUL", status(new IOException("something else")));
        assertEquals("STATUS_UNSUCCESSFUL", status(new IOException()));
    }

    @Test
    void theMessageNamesTheOperationAndTheReason() {
        SmbStatusException e = IoStatus.of(new FileSystemException("/x/f", null, "No space left on device"), "write 'f'");
        assertEquals(NtStatus.DISK_FULL, e.status());
        assertTrue(e.getMessage().startsWith("write 'f': "), e.getMessage());
        assertTrue(e.getMessage().contains("No space left on device"), e.getMessage());
    }

    @Test
    void aRealFailureOfTheFileSystemMapsThroughTheSameRules(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("f"), "x");
        try {
            Files.createDirectory(dir.resolve("f").resolve("sub"));
        } catch (IOException e) {
            assertEquals("STATUS_NOT_A_DIRECTORY", status(e), e.toString());
            return;
        }
        throw new AssertionError("a directory was created below a file");
    }
}
