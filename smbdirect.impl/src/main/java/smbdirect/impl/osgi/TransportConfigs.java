package smbdirect.impl.osgi;

import java.time.Duration;
import java.util.Map;

import smbdirect.api.dto.SettingsDTO;
import smbdirect.impl.engine.SettingsException;
import smbdirect.impl.engine.TransportSettings;

/**
 * Maps a {@link TransportConfig} to {@link TransportSettings} and back to the DTO. The single place
 * where configuration is validated: the engine's builder checks every value against the spec, and a
 * refusal is reported under the configuration attribute's name and value. Stateless.
 */
final class TransportConfigs {

    private static final long MIB = 1024L * 1024L;

    /** Builder attribute name to configuration attribute name, where they differ. */
    private static final Map<String, String> CONFIG_NAMES = Map.of(
            "keepaliveInterval", "keepaliveIntervalSeconds",
            "keepaliveResponseTimeout", "keepaliveResponseTimeoutSeconds",
            "activeNegotiationTimeout", "activeNegotiationTimeoutSeconds",
            "passiveNegotiationTimeout", "passiveNegotiationTimeoutSeconds",
            "creditGrantTimeout", "creditGrantTimeoutMillis",
            "receiveBufferBudget", "receiveBufferBudgetMB");

    private TransportConfigs() {
    }

    /**
     * Validates {@code config} and builds the settings.
     *
     * @throws SettingsException naming the configuration attribute and its configured value
     */
    static TransportSettings toSettings(TransportConfig config) {
        long budgetBytes;
        try {
            budgetBytes = Math.multiplyExact(config.receiveBufferBudgetMB(), MIB);
        } catch (ArithmeticException e) {
            throw new SettingsException("receiveBufferBudgetMB", config.receiveBufferBudgetMB(), "too large");
        }
        try {
            return TransportSettings.builder()
                    .receiveCreditMax(config.receiveCreditMax())
                    .sendCreditTarget(config.sendCreditTarget())
                    .maxSendSize(config.maxSendSize())
                    .maxReceiveSize(config.maxReceiveSize())
                    .maxFragmentedRecvSize(config.maxFragmentedRecvSize())
                    .maxReadWriteSize(config.maxReadWriteSize())
                    .keepaliveInterval(seconds("keepaliveIntervalSeconds", config.keepaliveIntervalSeconds()))
                    .keepaliveResponseTimeout(
                            seconds("keepaliveResponseTimeoutSeconds", config.keepaliveResponseTimeoutSeconds()))
                    .activeNegotiationTimeout(
                            seconds("activeNegotiationTimeoutSeconds", config.activeNegotiationTimeoutSeconds()))
                    .passiveNegotiationTimeout(
                            seconds("passiveNegotiationTimeoutSeconds", config.passiveNegotiationTimeoutSeconds()))
                    .creditGrantTimeout(Duration.ofMillis(config.creditGrantTimeoutMillis()))
                    .creditRefillFraction(config.creditRefillFraction())
                    .inboundReadDepth(config.inboundReadDepth())
                    .outboundReadDepth(config.outboundReadDepth())
                    .maxConnectionsPerListener(config.maxConnectionsPerListener())
                    .maxNegotiatingPerListener(config.maxNegotiatingPerListener())
                    .receiveBufferBudget(budgetBytes)
                    .build();
        } catch (SettingsException e) {
            String name = CONFIG_NAMES.get(e.attribute());
            if (name == null) {
                throw e;
            }
            throw new SettingsException(name, configuredValue(config, name),
                    e.getMessage().substring(e.getMessage().indexOf("refused: ") + "refused: ".length()));
        }
    }

    private static Duration seconds(String attribute, long value) {
        if (value > Long.MAX_VALUE / 1_000_000_000L) {
            throw new SettingsException(attribute, value, "too large");
        }
        return Duration.ofSeconds(value);
    }

    private static Object configuredValue(TransportConfig config, String name) {
        return switch (name) {
            case "keepaliveIntervalSeconds" -> config.keepaliveIntervalSeconds();
            case "keepaliveResponseTimeoutSeconds" -> config.keepaliveResponseTimeoutSeconds();
            case "activeNegotiationTimeoutSeconds" -> config.activeNegotiationTimeoutSeconds();
            case "passiveNegotiationTimeoutSeconds" -> config.passiveNegotiationTimeoutSeconds();
            case "creditGrantTimeoutMillis" -> config.creditGrantTimeoutMillis();
            case "receiveBufferBudgetMB" -> config.receiveBufferBudgetMB();
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** The settings as the runtime DTO shows them. */
    static SettingsDTO toDTO(TransportSettings s) {
        SettingsDTO dto = new SettingsDTO();
        dto.receiveCreditMax = s.receiveCreditMax();
        dto.sendCreditTarget = s.sendCreditTarget();
        dto.maxSendSize = s.maxSendSize();
        dto.maxReceiveSize = s.maxReceiveSize();
        dto.maxFragmentedRecvSize = s.maxFragmentedRecvSize();
        dto.maxReadWriteSize = s.maxReadWriteSize();
        dto.keepaliveIntervalMillis = s.keepaliveInterval().toMillis();
        dto.keepaliveResponseTimeoutMillis = s.keepaliveResponseTimeout().toMillis();
        dto.activeNegotiationTimeoutMillis = s.activeNegotiationTimeout().toMillis();
        dto.passiveNegotiationTimeoutMillis = s.passiveNegotiationTimeout().toMillis();
        dto.creditGrantTimeoutMillis = s.creditGrantTimeout().toMillis();
        dto.creditRefillFraction = s.creditRefillFraction();
        return dto;
    }
}
