package smbdirect.rdma.iwarp.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;

import smbdirect.api.settings.SettingRefusedException;

/** What the iWARP provider refuses beyond its metatype, as the settings guard learns it. */
class IwarpConfigurationCheckTest {

    private final IwarpConfigurationCheck check = new IwarpConfigurationCheck();

    private SettingRefusedException refused(Map<String, ?> properties) {
        return assertThrows(SettingRefusedException.class, () -> check.check(properties));
    }

    @Test
    void aGoodConfigurationAsTheWebConsoleOrAFileSavesItPasses() {
        check.check(Map.of());
        check.check(Map.of("listenAddresses", new String[] {"127.0.0.1:5445", "[::1]:5445"}, "maxFpduSize", 1448,
                "crc", Boolean.FALSE, "sendBufferSize", "65536", "peerToPeer", "WRITE", "mpaRevision", "2"));
        check.check(Map.of("listenAddresses", "10.0.0.5:5445, *:5446"));
    }

    @Test
    void aMaxFpduSizeInTheMetatypesRangeButNoMultipleOfFourIsRefusedWithItsRule() {
        SettingRefusedException e = refused(Map.of("maxFpduSize", "1001"));
        assertEquals("maxFpduSize", e.attribute());
        assertEquals("1001", e.value());
        assertEquals("must be a multiple of 4 from 64 to 65536, or 0 to follow the path's MSS", e.reason());
        assertEquals("maxFpduSize", refused(Map.of("maxFpduSize", "32")).attribute());
    }

    @Test
    void socketBuffersBelow4096BytesAreRefused() {
        SettingRefusedException e = refused(Map.of("sendBufferSize", "100"));
        assertEquals("sendBufferSize", e.attribute());
        assertEquals("must be 0 (system default) or 4096..2^30", e.reason());
        assertEquals("receiveBufferSize", refused(Map.of("receiveBufferSize", 1)).attribute());
    }

    @Test
    void rtrFramesWithoutMpaRevision2AreRefusedAcrossTheTwoFields() {
        SettingRefusedException e = refused(Map.of("peerToPeer", "WRITE", "mpaRevision", "1"));
        assertEquals("peerToPeer", e.attribute());
        assertEquals("WRITE", e.value());
        check.check(Map.of("peerToPeer", "NONE", "mpaRevision", "1"));
    }

    @Test
    void aListenAddressThatIsAHostNameOrHasABadPortIsRefused() {
        SettingRefusedException name = refused(Map.of("listenAddresses", new String[] {"localhost:5445"}));
        assertEquals("listenAddresses", name.attribute());
        assertEquals("localhost:5445", name.value());
        assertEquals("listenAddresses", refused(Map.of("listenAddresses", "127.0.0.1:99999")).attribute());
    }

    @Test
    void valuesThatAreNoNumberOrBooleanAreRefusedByName() {
        SettingRefusedException crc = refused(Map.of("crc", "ture"));
        assertEquals("crc", crc.attribute());
        assertEquals("not true or false", crc.reason());
        assertEquals("ioThreads", refused(Map.of("ioThreads", "2x")).attribute());
    }

    @Test
    void theComponentRefusesWhatTheCheckRefusesForItIsTheSameConversion() {
        IwarpProviderLifecycle lifecycle = new IwarpProviderLifecycle((p, props) -> () -> { }, (name, settings) -> {
            throw new AssertionError("no provider opens with a refused configuration");
        });
        Map<String, Object> raw = Map.of("maxFpduSize", "1001");
        assertEquals(IwarpProviderLifecycle.Outcome.REFUSED,
                lifecycle.configure(smbdirect.api.settings.ComponentProperties.read(IwarpConfiguration.class, raw), raw));
        assertEquals(refused(raw).getMessage(), lifecycle.lastRefusal());
    }
}
