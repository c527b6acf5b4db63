package smbdirect.interop.fileserver;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The README's mount line, which {@link CifsMountsFileServerOverIwarpTest} runs in the VM, is found
 * and replaced as that test replaces it, without a VM: only the server's address and the account
 * change, the rest of the line is the README's character for character.
 */
class ReadmeMountTest {

    @Test
    void theReadmesMountLineChangesOnlyInTheServersAddressAndTheAccount() {
        String written = ReadmeMount.asWritten();
        ReadmeMount.Command run = ReadmeMount.forServer("10.0.2.100", "fsuser", "Fs-Pass-1");
        ReadmeMount.Command readme = ReadmeMount.parse(written);
        assertAll(
                () -> assertEquals(readme.unc().replace(ReadmeMount.README_ADDRESS, "10.0.2.100"), run.unc()),
                () -> assertEquals(readme.mountPoint(), run.mountPoint()),
                () -> assertEquals(readme.options().replace("username=" + ReadmeMount.README_USER, "username=fsuser")
                        .replace("password=" + ReadmeMount.README_PASSWORD, "password=Fs-Pass-1"), run.options()),
                () -> assertTrue(run.options().startsWith("rdma,"), "over SMB Direct: " + run.options()),
                () -> assertEquals(written.length() + ("10.0.2.100".length() - ReadmeMount.README_ADDRESS.length())
                        + ("fsuser".length() - ReadmeMount.README_USER.length())
                        + ("Fs-Pass-1".length() - ReadmeMount.README_PASSWORD.length()), run.line().length(),
                        "nothing else replaced: " + run.line()));
    }

    @Test
    void theReadmesGuestMountIsOverSmbDirectAsGuest() {
        String options = ReadmeMount.guestOptions();
        assertTrue(options.startsWith("rdma,") && options.matches(".*(^|,)guest(,|$).*"), options);
    }

    @Test
    void aLineOfAnotherShapeIsNamedNotRun() {
        AssertionError e = assertThrows(AssertionError.class, () -> ReadmeMount.parse("mount.cifs //h/s /mnt"));
        assertTrue(e.getMessage().contains("mount.cifs //h/s /mnt"), e.getMessage());
    }
}
