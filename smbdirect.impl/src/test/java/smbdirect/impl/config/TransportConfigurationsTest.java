package smbdirect.impl.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.impl.config.ConfigurationAnnotations.transportConfig;

import java.time.Duration;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import smbdirect.api.dto.SettingsDTO;
import smbdirect.impl.engine.SettingsException;
import smbdirect.impl.engine.TransportSettings;

class TransportConfigurationsTest {

    @Test
    void ocdDefaultsAreTheEngineDefaults() {
        TransportSettings fromOcd = TransportConfigurations.toSettings(transportConfig());
        assertEquals(TransportSettings.DEFAULTS, fromOcd);
    }

    @Test
    void everyAttributeReachesItsSetting() {
        TransportSettings s = TransportConfigurations.toSettings(transportConfig(
                "receiveCreditMax", 100, "sendCreditTarget", 90, "maxSendSize", 1024, "maxReceiveSize", 4096,
                "maxFragmentedRecvSize", 262144, "maxReadWriteSize", 65536, "keepaliveIntervalSeconds", 30L,
                "keepaliveResponseTimeoutSeconds", 3L, "activeNegotiationTimeoutSeconds", 60L,
                "passiveNegotiationTimeoutSeconds", 4L, "creditGrantTimeoutMillis", 0L, "creditRefillFraction", 0.5,
                "inboundReadDepth", 4, "outboundReadDepth", 2, "maxConnectionsPerListener", 10,
                "maxNegotiatingPerListener", 5, "receiveBufferBudgetMB", 16L, "drainTimeoutSeconds", 30L));
        assertEquals(100, s.receiveCreditMax());
        assertEquals(90, s.sendCreditTarget());
        assertEquals(1024, s.maxSendSize());
        assertEquals(4096, s.maxReceiveSize());
        assertEquals(262144, s.maxFragmentedRecvSize());
        assertEquals(65536, s.maxReadWriteSize());
        assertEquals(Duration.ofSeconds(30), s.keepaliveInterval());
        assertEquals(Duration.ofSeconds(3), s.keepaliveResponseTimeout());
        assertEquals(Duration.ofSeconds(60), s.activeNegotiationTimeout());
        assertEquals(Duration.ofSeconds(4), s.passiveNegotiationTimeout());
        assertEquals(Duration.ZERO, s.creditGrantTimeout());
        assertEquals(0.5, s.creditRefillFraction());
        assertEquals(4, s.inboundReadDepth());
        assertEquals(2, s.outboundReadDepth());
        assertEquals(10, s.maxConnectionsPerListener());
        assertEquals(5, s.maxNegotiatingPerListener());
        assertEquals(16L << 20, s.receiveBufferBudget());
        assertEquals(Duration.ofSeconds(30), s.drainTimeout());
    }

    @Test
    void noDrainTimeIsAccepted() {
        assertEquals(Duration.ZERO, TransportConfigurations.toSettings(transportConfig("drainTimeoutSeconds", 0L)).drainTimeout());
        assertEquals(Duration.ofSeconds(10), TransportSettings.DEFAULTS.drainTimeout(), "the default");
    }

    @DisplayName("a bad value is refused under its configuration attribute name and configured value")
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
            "maxReceiveSize, 100, int",
            "maxFragmentedRecvSize, 131071, int",
            "receiveCreditMax, 0, int",
            "sendCreditTarget, 65536, int",
            "maxReadWriteSize, 4095, int",
            "inboundReadDepth, 0, int",
            "keepaliveIntervalSeconds, 0, long",
            "keepaliveResponseTimeoutSeconds, -1, long",
            "activeNegotiationTimeoutSeconds, 0, long",
            "passiveNegotiationTimeoutSeconds, 0, long",
            "creditGrantTimeoutMillis, -5, long",
            "creditRefillFraction, 1.5, double",
            "creditRefillFraction, 0, double",
            "receiveBufferBudgetMB, 1, long",
            "receiveBufferBudgetMB, 9223372036854775807, long",
            "keepaliveIntervalSeconds, 9223372036854775807, long",
            "drainTimeoutSeconds, -1, long",
            "drainTimeoutSeconds, 3601, long" })
    void badValueIsRefusedNamingAttributeAndValue(String attribute, String value, String type) {
        Object v = switch (type) {
            case "int" -> Integer.valueOf(value);
            case "long" -> Long.valueOf(value);
            default -> Double.valueOf(value);
        };
        SettingsException e = assertThrows(SettingsException.class,
                () -> TransportConfigurations.toSettings(transportConfig(attribute, v)));
        assertEquals(attribute, e.attribute());
        assertEquals(String.valueOf(v), e.value());
        assertTrue(e.getMessage().startsWith(attribute + "=" + v + " refused: "), e.getMessage());
    }

    /**
     * A value the engine's builder refuses under its own name (a duration, bytes) is refused under the
     * configuration attribute's name and configured value, with the builder's reason unchanged; all
     * three come as data, and the message says them in its usual form.
     */
    @Test
    void refusalCarriesTheConfigurationNameTheConfiguredValueAndTheReasonAsData() {
        assertRefusedAs("keepaliveIntervalSeconds", 0L,
                () -> TransportSettings.builder().keepaliveInterval(Duration.ZERO).build());
        assertRefusedAs("creditGrantTimeoutMillis", -5L,
                () -> TransportSettings.builder().creditGrantTimeout(Duration.ofMillis(-5)).build());
        assertRefusedAs("receiveBufferBudgetMB", 1L,
                () -> TransportSettings.builder().receiveBufferBudget(1L << 20).build());
        assertRefusedAs("drainTimeoutSeconds", 3601L,
                () -> TransportSettings.builder().drainTimeout(Duration.ofSeconds(3601)).build());
        // an attribute the builder names as the configuration does is refused as the builder refused it
        assertRefusedAs("receiveCreditMax", 0, () -> TransportSettings.builder().receiveCreditMax(0).build());
    }

    /** Asserts that {@code attribute=value} is refused with the reason the builder gives when {@code builder} runs. */
    private static void assertRefusedAs(String attribute, Object value, Runnable builder) {
        String reason = assertThrows(SettingsException.class, builder::run).reason();
        SettingsException e = assertThrows(SettingsException.class,
                () -> TransportConfigurations.toSettings(transportConfig(attribute, value)));
        assertEquals(attribute, e.attribute());
        assertEquals(String.valueOf(value), e.value());
        assertEquals(reason, e.reason());
        assertEquals(attribute + "=" + value + " refused: " + reason, e.getMessage());
    }

    @Test
    void dtoShowsTheSettingsInTheirUnits() {
        SettingsDTO dto = TransportConfigurations.toSettings(
                transportConfig("keepaliveIntervalSeconds", 30L, "creditGrantTimeoutMillis", 1500L,
                        "receiveCreditMax", 77)).toDTO();
        assertEquals(30, dto.keepaliveIntervalSeconds);
        assertEquals(1500, dto.creditGrantTimeoutMillis);
        assertEquals(77, dto.receiveCreditMax);
        assertEquals(8192, dto.maxReceiveSize);
        assertEquals(0.9, dto.creditRefillFraction);
        assertEquals(10, dto.drainTimeoutSeconds);
    }
}
