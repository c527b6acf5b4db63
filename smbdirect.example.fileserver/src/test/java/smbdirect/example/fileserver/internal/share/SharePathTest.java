package smbdirect.example.fileserver.internal.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.example.fileserver.internal.share.ShareFixture.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import smbdirect.example.fileserver.internal.smb2.NtStatus;

/**
 * Names inside the share ([MS-SMB2] 3.3.5.9, [MS-FSCC] 2.1.5 pathname rules): nothing a client
 * names reaches outside the root.
 */
class SharePathTest {

    @TempDir
    Path base;
    Path root;
    Path outside;
    Share share;

    @BeforeEach
    void share() throws IOException {
        root = Files.createDirectory(base.resolve("root"));
        outside = Files.createDirectory(base.resolve("outside"));
        Files.writeString(outside.resolve("secret"), "secret");
        Files.createDirectories(root.resolve("a/b"));
        Files.writeString(root.resolve("a/b/f"), "inside");
        share = new Share("s", root, false);
    }

    @ParameterizedTest
    @ValueSource(strings = {"..", "..\\outside\\secret", "a\\..\\..\\outside\\secret", "a\\..", ".", "a\\.\\b"})
    void dotAndDotDotComponentsAnswerObjectNameInvalid(String name) {
        assertStatus(NtStatus.OBJECT_NAME_INVALID, () -> open(share, name, GENERIC_READ, OPEN_IF, 0));
        assertFalse(Files.exists(base.resolve("x")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\\b:stream", "a/b", "a*", "q?", "x\"y", "<", ">", "p|q", "tab\tname", "a\\\\b", "a\\"})
    void invalidCharactersAndEmptyComponentsAnswerObjectNameInvalid(String name) {
        assertStatus(NtStatus.OBJECT_NAME_INVALID, () -> open(share, name, GENERIC_READ, OPEN_IF, 0));
    }

    @Test
    void aComponentLongerThan255AnswersObjectNameInvalid() {
        assertStatus(NtStatus.OBJECT_NAME_INVALID, () -> open(share, "n".repeat(256), GENERIC_WRITE, CREATE, 0));
    }

    @Test
    void aLeadingBackslashAnswersInvalidParameter() {
        // [MS-SMB2] 3.3.5.9: a name that starts with a path separator
        assertStatus(NtStatus.INVALID_PARAMETER, () -> openRead(share, "\\a\\b\\f"));
    }

    @Test
    void anAbsoluteHostPathIsNotFollowed() {
        assertStatus(NtStatus.OBJECT_NAME_INVALID, () -> openRead(share, outside.resolve("secret").toString()));
    }

    @Test
    void aMissingParentAnswersObjectPathNotFound() {
        assertStatus(NtStatus.OBJECT_PATH_NOT_FOUND, () -> open(share, "nope\\f", GENERIC_WRITE, CREATE, 0));
    }

    @Test
    void aFileOnTheWayAnswersObjectPathNotFound() {
        assertStatus(NtStatus.OBJECT_PATH_NOT_FOUND, () -> openRead(share, "a\\b\\f\\g"));
    }

    @Test
    void nestedNamesResolveWithBackslashes() throws Exception {
        OpenFile f = openRead(share, "a\\b\\f");
        assertEquals("a\\b\\f", f.path());
        assertEquals(6, f.channel().size());
    }

    @Test
    void namesAreCaseSensitiveLikeTheFileSystem() {
        assertStatus(NtStatus.OBJECT_NAME_NOT_FOUND, () -> openRead(share, "a\\b\\F"));
        assertStatus(NtStatus.OBJECT_PATH_NOT_FOUND, () -> openRead(share, "A\\b\\f"));
    }

    @Test
    void aSymbolicLinkToAFileOutsideIsRefused() throws Exception {
        Files.createSymbolicLink(root.resolve("out"), outside.resolve("secret"));
        assertStatus(NtStatus.ACCESS_DENIED, () -> openRead(share, "out"));
        assertStatus(NtStatus.ACCESS_DENIED, () -> open(share, "out", GENERIC_WRITE, OVERWRITE_IF, 0));
        assertEquals("secret", Files.readString(outside.resolve("secret")));
    }

    @Test
    void aSymbolicLinkToADirectoryOutsideIsRefusedAnywhereOnThePath() throws Exception {
        Files.createSymbolicLink(root.resolve("a/od"), outside);
        assertStatus(NtStatus.ACCESS_DENIED, () -> openRead(share, "a\\od\\secret"));
        assertStatus(NtStatus.ACCESS_DENIED, () -> open(share, "a\\od\\planted", GENERIC_WRITE, CREATE, 0));
        assertStatus(NtStatus.ACCESS_DENIED, () -> openRead(share, "a\\od"));
        assertFalse(Files.exists(outside.resolve("planted")));
    }

    @Test
    void aChainOfLinksThatEndsOutsideIsRefused() throws Exception {
        Files.createSymbolicLink(root.resolve("l1"), root.resolve("l2"));
        Files.createSymbolicLink(root.resolve("l2"), Path.of("../outside"));
        assertStatus(NtStatus.ACCESS_DENIED, () -> openRead(share, "l1\\secret"));
        assertStatus(NtStatus.ACCESS_DENIED, () -> openRead(share, "l1"));
    }

    @Test
    void aDanglingLinkIsRefusedSoThatCreatingThroughItCannotLeaveTheShare() throws Exception {
        Files.createSymbolicLink(root.resolve("dangling"), outside.resolve("new"));
        assertStatus(NtStatus.ACCESS_DENIED, () -> open(share, "dangling", GENERIC_WRITE, OPEN_IF, 0));
        assertFalse(Files.exists(outside.resolve("new")));
    }

    @Test
    void aLinkInsideTheShareIsFollowed() throws Exception {
        Files.createSymbolicLink(root.resolve("lf"), Path.of("a/b/f"));
        Files.createSymbolicLink(root.resolve("ld"), root.resolve("a"));
        assertEquals(6, openRead(share, "lf").channel().size());
        assertEquals(6, openRead(share, "ld\\b\\f").channel().size());
        assertTrue(openRead(share, "ld").isDirectory());
    }

    @Test
    void unlinkWithOpenReparsePointRemovesALinkLeadingOutNotItsTarget() throws Exception {
        Files.createSymbolicLink(root.resolve("out"), outside.resolve("secret"));
        // Linux cifs's unlink: DELETE, FILE_OPEN, FILE_DELETE_ON_CLOSE | FILE_OPEN_REPARSE_POINT
        OpenFile link = open(share, "out", DELETE, OPEN, DELETE_ON_CLOSE | OPEN_REPARSE_POINT);
        assertFalse(link.isDirectory());
        assertFalse(link.canRead());
        share.close(link, false);
        assertFalse(Files.exists(root.resolve("out"), java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertEquals("secret", Files.readString(outside.resolve("secret")));
    }

    @Test
    void unlinkOfALinkInsideRemovesTheLinkAndKeepsTheFile() throws Exception {
        Files.createSymbolicLink(root.resolve("lf"), Path.of("a/b/f"));
        share.close(open(share, "lf", DELETE, OPEN, DELETE_ON_CLOSE | OPEN_REPARSE_POINT), false);
        assertFalse(Files.exists(root.resolve("lf"), java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertEquals("inside", Files.readString(root.resolve("a/b/f")));
    }

    @Test
    void renameOfAFollowedLinkMovesTheLinkNotItsTarget() throws Exception {
        Files.createSymbolicLink(root.resolve("lf"), root.resolve("a/b/f"));
        OpenFile f = open(share, "lf", DELETE | GENERIC_READ, OPEN, 0);
        assertEquals(6, f.channel().size(), "data through the link");
        byte[] n = utf16("moved");
        share.setInfo(f, 1, 10, le(20 + n.length).putInt(16, n.length).put(20, n));
        assertTrue(Files.isSymbolicLink(root.resolve("moved")));
        assertEquals("inside", Files.readString(root.resolve("a/b/f")));
    }

    @Test
    void aLinkOpenedAsItselfShowsTheLinksAttributesNotTheTargets() throws Exception {
        Files.write(outside.resolve("big"), new byte[12345]);
        Files.createSymbolicLink(root.resolve("big"), outside.resolve("big"));
        OpenFile link = open(share, "big", FILE_READ_ATTRIBUTES, OPEN, OPEN_REPARSE_POINT);
        assertTrue(link.info().endOfFile() != 12345);
        assertStatus(NtStatus.ACCESS_DENIED, () -> open(share, "big", GENERIC_WRITE, OVERWRITE, OPEN_REPARSE_POINT));
    }

    @Test
    void aShareWhoseRootIsALinkServesTheLinkedDirectory() throws Exception {
        Path link = Files.createSymbolicLink(base.resolve("rootlink"), root);
        Share viaLink = new Share("l", link, false);
        assertEquals(6, openRead(viaLink, "a\\b\\f").channel().size());
    }

    @Test
    void aRootThatIsNotADirectoryIsRefused() {
        org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
                () -> new Share("f", root.resolve("a/b/f"), false));
    }
}
