package smbdirect.interop.vm;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The guest JUnit harness end to end, in one VM boot with two guest JVMs: a sample class whose
 * three tests pass, fail and skip comes back with exactly those outcomes, the failure's message and
 * the skip's reason, having run on the image's kernel with the RDMA device in place; and an existing
 * test class of this module ({@code RpingPairTest}: our rping client and server over the mock and
 * the software iWARP provider) runs in the guest, each of its tests reported here as a test of its
 * own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(900)
class GuestJUnitTest {

    private SiwVmResult result;
    private GuestReport sample;
    private GuestReport rping;
    private String kver;

    @BeforeAll
    void boot() throws Exception {
        SiwVm vm = SiwVm.require();
        GuestJUnit junit = GuestJUnit.require();
        kver = Files.readString(vm.image().resolve("kver"), StandardCharsets.US_ASCII).strip();
        GuestJUnit.Launch sampleRun = junit.launch("sample").select(GuestOutcomesSample.class.getName())
                .property("smbdirect.test.kver", kver).property("smbdirect.test.device", "siw0")
                .timeout(Duration.ofMinutes(4));
        GuestJUnit.Launch rpingRun = junit.launch("rping").select("smbdirect.interop.rping.RpingPairTest")
                .timeout(Duration.ofMinutes(6));
        SiwVmSpec spec = junit.prepare(SiwVmSpec.command(String.join("\n", junit.setup(), sampleRun.command(),
                rpingRun.command())).timeout(Duration.ofMinutes(12)).name("guest-junit"));
        result = SiwVmAttempts.run(vm, "the guest JUnit harness", boots -> {
            try (SiwVmRun run = boots.start(spec)) {
                return run.awaitExit();
            }
        });
        sample = sampleRun.reportOf(result);
        rping = rpingRun.reportOf(result);
    }

    @Test
    void eachGuestTestComesBackWithItsOutcomeMessageAndReason() {
        assertNull(sample.problem(), () -> sample.problem() + "\n" + result.tail(60));
        Map<String, GuestReport.TestCase> byName = sample.cases().stream()
                .collect(Collectors.toMap(GuestReport.TestCase::name, Function.identity()));
        GuestReport.TestCase passed = byName.get("passesOnTheImagesKernelWithItsRdmaDevice()");
        GuestReport.TestCase failed = byName.get("failsWithItsMessage()");
        GuestReport.TestCase skipped = byName.get("isSkippedWithItsReason()");
        assertAll(
                () -> assertEquals(3, sample.cases().size(), sample.cases().toString()),
                () -> assertEquals(GuestReport.Outcome.PASSED, passed.outcome(), passed.toString()),
                () -> assertEquals(GuestOutcomesSample.class.getName(), passed.className()),
                () -> assertEquals(GuestReport.Outcome.FAILED, failed.outcome()),
                () -> assertEquals("the failure the host expects", failed.message()),
                () -> assertTrue(failed.detail().contains("GuestOutcomesSample.failsWithItsMessage"),
                        "the guest's stack trace: " + failed.detail()),
                () -> assertEquals(GuestReport.Outcome.SKIPPED, skipped.outcome()),
                () -> assertTrue(skipped.message().contains("the reason the host expects"), skipped.message()),
                () -> assertEquals("1 passed, 1 failed, 1 skipped", sample.summary()));
    }

    @Test
    void theGuestKernelStayedHealthy() {
        assertEquals(List.of(), result.kernelFaults(), result.tail(60));
        assertEquals(0, result.exitCode(), result.tail(60));
    }

    @TestFactory
    Stream<DynamicNode> rpingPairTestInTheGuest() {
        return rping.tests("guest " + kver + ": ");
    }
}
