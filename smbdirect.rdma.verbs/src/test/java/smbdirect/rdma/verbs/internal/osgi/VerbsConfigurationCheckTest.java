package smbdirect.rdma.verbs.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;

import smbdirect.api.settings.ComponentProperties;
import smbdirect.api.settings.SettingRefusedException;

/** What the verbs provider refuses beyond its metatype, as the settings guard learns it. */
class VerbsConfigurationCheckTest {

    private final VerbsConfigurationCheck check = new VerbsConfigurationCheck();

    @Test
    void queueDepthsThatTogetherExceedTheSharedCompletionQueueAreRefusedThoughEachIsInRange() {
        SettingRefusedException e = assertThrows(SettingRefusedException.class, () -> check.check(
                Map.of("cqSize", "1024", "maxSendWorkRequests", "1024", "maxReceiveWorkRequests", "1")));
        assertEquals("maxSendWorkRequests + maxReceiveWorkRequests", e.attribute());
        assertEquals("1025", e.value());
        assertEquals("must be <= cqSize 1024", e.reason());
        check.check(Map.of("cqSize", "2048", "maxSendWorkRequests", "1024", "maxReceiveWorkRequests", "1024"));
        check.check(Map.of());
    }

    @Test
    void aBackendOrANumberThatIsNoneIsRefusedByName() {
        assertEquals("backend", assertThrows(SettingRefusedException.class,
                () -> check.check(Map.of("backend", "ibverbs"))).attribute());
        SettingRefusedException busy = assertThrows(SettingRefusedException.class,
                () -> check.check(Map.of("busyPolling", "ture")));
        assertEquals("busyPolling", busy.attribute());
        assertEquals("not true or false", busy.reason());
    }

    @Test
    void theComponentConvertsWithTheSameFunctionTheCheckRuns() {
        Map<String, Object> raw = Map.of("cqSize", "8", "maxSendWorkRequests", "4", "maxReceiveWorkRequests", "5");
        SettingRefusedException byComponent = assertThrows(SettingRefusedException.class,
                () -> VerbsProviderComponent.settings(ComponentProperties.read(VerbsConfiguration.class, raw)));
        assertEquals(assertThrows(SettingRefusedException.class, () -> check.check(raw)).getMessage(),
                byComponent.getMessage());
    }
}
