package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import smbdirect.testsupport.Judges;

/**
 * Says in one line when the rdma-core backend's tests (src/test/java22, run by the surefire
 * execution rdma-core-test in a JDK 22+ JVM) cannot run because the build found no JDK 22+: the
 * pom passes the JDK it found as {@code smbdirect.ffm.jdk} (empty when none).
 */
class RdmaCoreTestsNeedJdk22Test {

    @Test
    void theRdmaCoreBackendsTestsRunInAJdk22Jvm() {
        String jdk = System.getProperty("smbdirect.ffm.jdk", "");
        if (jdk.isEmpty()) {
            throw Judges.missing("the rdma-core backend's tests need JDK 22+: none found (this build runs on "
                    + System.getProperty("java.version") + "; give one with -Dsmbdirect.jdk22=<JDK home>), so they did "
                    + "not run and the bundle carries no rdma-core backend");
        }
        String expected = "/smbdirect/rdma/verbs/internal/rdmacore/RdmaCoreAccess.class";
        assertEquals(true, getClass().getResource(expected) != null,
                "a JDK 22+ was found (" + jdk + ") but the rdma-core backend was not compiled: " + expected);
    }
}
