package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exported runtime jar on JDK 25, as an operator who wants the verbs provider's rdma-core backend
 * runs it: {@code java -jar smbdirect.jar} starts (bnd's launcher no longer sets a system-wide
 * Policy, which JDK 24+ refuses; SPI Fly weaves with an ASM that reads JDK 25's class files), the
 * rdma-core backend loads libibverbs and librdmacm without a native-access warning (the jar's
 * {@code Enable-Native-Access: ALL-UNNAMED}) and gets as far as the kernel lets it, and SIGTERM stops
 * it with status 0. The JDK is {@code -Dsmbdirect.jdk25} or /usr/lib/jvm/temurin-25-jdk-amd64;
 * without it the test is skipped saying so, and fails in strict mode ({@code SMBDIRECT_STRICT=1}).
 */
class RuntimeOnJdk25IT {

    static final Path DEFAULT_JDK = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");
    private static final Pattern VERBS = Pattern.compile("verbs RDMA provider (registered|not registered): (.*)");

    @TempDir
    Path dir;

    static Path jdk25() {
        Path home = Path.of(System.getProperty("smbdirect.jdk25", DEFAULT_JDK.toString()));
        if (!Files.isExecutable(home.resolve("bin/java"))) {
            String why = "no JDK 25 at " + home + " (-Dsmbdirect.jdk25=<JDK home>): the appliance on JDK 25 is not tested";
            if ("1".equals(System.getenv("SMBDIRECT_STRICT"))) {
                throw new AssertionError(why + " (strict mode)");
            }
            Assumptions.abort(why);
        }
        return home;
    }

    @Test
    void theApplianceRunsOnJdk25WithTheRdmaCoreBackendAndStopsOnSigterm() throws Exception {
        Path jdk = jdk25();
        try (RuntimeProcess runtime = RuntimeProcess.startOn(jdk, dir)) {
            runtime.awaitUp(Duration.ofSeconds(90)); // the whole banner, its Listeners line with it
            runtime.awaitOutput("verbs RDMA provider", Duration.ofSeconds(30));
            String out = runtime.output();
            assertFalse(out.contains("Setting a system-wide Policy object is not supported"), out);
            assertFalse(out.contains("Unsupported class file major version"), out);
            assertTrue(out.contains("default 10.0.0.1:445 on mock OPEN"), out);
            Matcher verbs = VERBS.matcher(out);
            assertTrue(verbs.find(), out);
            // the rdma-core backend was taken: registered, or stopped by the machine's RDMA stack, not by the JVM
            String status = verbs.group(2);
            assertTrue(verbs.group(1).equals("registered") ? status.startsWith("backend rdma-core")
                    : status.startsWith("rdma-core: ") && !status.contains("needs JDK 22+")
                            && !status.contains("native access"), status);
            assertFalse(out.contains("WARNING: A restricted method"), "native access is enabled by the jar's manifest:\n"
                    + out);
            assertEquals(0, runtime.terminate(Duration.ofSeconds(60)), runtime.output());
            assertTrue(runtime.output().contains("stopping the runtime (SIGTERM)"), runtime.output());
        }
    }
}
