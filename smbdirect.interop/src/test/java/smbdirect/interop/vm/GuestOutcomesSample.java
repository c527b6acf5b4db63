package smbdirect.interop.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Runs inside the guest only ({@link GuestJUnitTest} starts it): one test of each outcome, so the
 * host can check that passes, failures with their message and skips with their reason come back
 * as such. Not a test of the product.
 */
@Tag(GuestJUnit.GUEST_TAG)
class GuestOutcomesSample {

    @Test
    void passesOnTheImagesKernelWithItsRdmaDevice() {
        assertEquals(System.getProperty("smbdirect.test.kver"), System.getProperty("os.version"), "the guest's kernel");
        assertTrue(Files.isDirectory(Path.of("/sys/class/infiniband", System.getProperty("smbdirect.test.device"))),
                "the RDMA device in sysfs");
        assertTrue(Files.exists(Path.of("/dev/infiniband/rdma_cm")), "the RDMA CM device node");
    }

    @Test
    void failsWithItsMessage() {
        fail("the failure the host expects");
    }

    @Test
    void isSkippedWithItsReason() {
        Assumptions.abort("the reason the host expects");
    }
}
