package smbdirect.api.settings;

import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A component's own checks of its configuration beyond its metatype (cross-field rules, addresses,
 * paths, anything its conversion to settings refuses), offered as a service with the property
 * {@value #CONFIGURATION_PID} naming the configuration PID, or the factory PID, it checks. The
 * runtime's settings guard calls it before the component is handed a configuration: a refused one
 * is never handed on, the last good settings are. Where no check is registered, the configuration
 * is checked against its metatype only.
 *
 * <p>An implementation runs the same conversion its component runs, so that the guard and the
 * component refuse the same values. Thread-safe and free of side effects: it may be called at any
 * time, from any thread, for a configuration that is never applied.
 */
@ConsumerType
public interface ConfigurationCheck {

    /** Service property: the configuration PID, or factory PID, this check is for. */
    String CONFIGURATION_PID = "smbdirect.configuration.pid";

    /**
     * Checks a configuration's properties as Config Admin holds them (values may be text, as read
     * from a file).
     *
     * @throws SettingRefusedException naming the first refused attribute, its value and the reason
     */
    void check(Map<String, ?> properties);
}
