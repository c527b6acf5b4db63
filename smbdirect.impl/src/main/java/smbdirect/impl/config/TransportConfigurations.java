package smbdirect.impl.config;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

import smbdirect.impl.engine.SettingsException;
import smbdirect.impl.engine.TransportSettings;

/**
 * Maps a {@link TransportConfiguration} to {@link TransportSettings} ({@link TransportSettings#toDTO()} shows
 * them back under the configuration's names). The single place where configuration is validated: the
 * engine's builder checks every value against the spec, and a refusal is reported under the
 * configuration attribute's name and value. Stateless.
 */
public final class TransportConfigurations {

    private static final long MIB = 1024L * 1024L;

    /** Builder attribute name to configuration attribute name, where they differ. */
    private static final Map<String, String> CONFIG_NAMES = Map.of(
            "keepaliveInterval", "keepaliveIntervalSeconds",
            "keepaliveResponseTimeout", "keepaliveResponseTimeoutSeconds",
            "activeNegotiationTimeout", "activeNegotiationTimeoutSeconds",
            "passiveNegotiationTimeout", "passiveNegotiationTimeoutSeconds",
            "creditGrantTimeout", "creditGrantTimeoutMillis",
            "receiveBufferBudget", "receiveBufferBudgetMB",
            "drainTimeout", "drainTimeoutSeconds");

    private TransportConfigurations() {
    }

    /**
     * Validates configuration properties given outside Configuration Admin (the plain-Java entry
     * point) and builds the settings: the same attribute names, defaults and checks as the
     * {@value TransportConfiguration#PID} configuration, because the values are read through
     * the same {@link TransportConfiguration} type (an attribute that is absent takes the type's default).
     * An attribute the configuration does not know is refused (a typo would otherwise be ignored
     * silently), and so is {@code provider.target}, which selects among providers and has no meaning
     * for a transport built over one provider.
     *
     * @param properties attribute name to value (a number, or text that parses as the attribute's type)
     * @throws SettingsException naming the first refused attribute and its value
     */
    public static TransportSettings fromProperties(Map<String, ?> properties) {
        Map<String, Method> attributes = new HashMap<>();
        for (Method m : TransportConfiguration.class.getDeclaredMethods()) {
            attributes.put(ConfigurationValues.propertyName(m.getName()), m);
        }
        for (Map.Entry<String, ?> e : properties.entrySet()) {
            if ("provider.target".equals(e.getKey())) {
                throw new SettingsException(e.getKey(), e.getValue(),
                        "selects among RDMA providers; a transport built over one provider has nothing to select");
            }
            if (!attributes.containsKey(e.getKey())) {
                TreeSet<String> known = new TreeSet<>(attributes.keySet());
                known.remove("provider.target");
                throw new SettingsException(e.getKey(), e.getValue(),
                        "not an attribute of " + TransportConfiguration.PID + "; known: " + known);
            }
        }
        ConfigurationValues.check(TransportConfiguration.class, properties);
        TransportConfiguration config = ConfigurationValues.proxy(TransportConfiguration.class, properties);
        return toSettings(config);
    }

    /**
     * Validates {@code config} and builds the settings.
     *
     * @throws SettingsException naming the configuration attribute and its configured value
     */
    public static TransportSettings toSettings(TransportConfiguration config) {
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
                    .drainTimeout(seconds("drainTimeoutSeconds", config.drainTimeoutSeconds()))
                    .build();
        } catch (SettingsException e) {
            // The builder names its own attribute (a Duration, bytes); the refusal is said again under the
            // configuration's name and configured value, with the builder's reason taken as data.
            String name = CONFIG_NAMES.get(e.attribute());
            if (name == null) {
                throw e;
            }
            throw new SettingsException(name, configuredValue(config, name), e.reason());
        }
    }

    private static Duration seconds(String attribute, long value) {
        if (value > Long.MAX_VALUE / 1_000_000_000L) {
            throw new SettingsException(attribute, value, "too large");
        }
        return Duration.ofSeconds(value);
    }

    private static Object configuredValue(TransportConfiguration config, String name) {
        return switch (name) {
            case "keepaliveIntervalSeconds" -> config.keepaliveIntervalSeconds();
            case "keepaliveResponseTimeoutSeconds" -> config.keepaliveResponseTimeoutSeconds();
            case "activeNegotiationTimeoutSeconds" -> config.activeNegotiationTimeoutSeconds();
            case "passiveNegotiationTimeoutSeconds" -> config.passiveNegotiationTimeoutSeconds();
            case "creditGrantTimeoutMillis" -> config.creditGrantTimeoutMillis();
            case "receiveBufferBudgetMB" -> config.receiveBufferBudgetMB();
            case "drainTimeoutSeconds" -> config.drainTimeoutSeconds();
            default -> throw new IllegalArgumentException(name);
        };
    }
}
