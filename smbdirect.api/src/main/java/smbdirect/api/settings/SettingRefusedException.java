package smbdirect.api.settings;

/**
 * A configuration value refused, as data: the attribute (the configuration key), the value as
 * written and the reason. Thrown by a {@link ConfigurationCheck} and by the conversions of the
 * runtime's components; nobody needs to read the message to learn what was refused.
 */
public class SettingRefusedException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String attribute;
    private final String value;
    private final String reason;

    /** Refuses {@code value} of {@code attribute}; the message is {@code attribute = value refused: reason}. */
    public SettingRefusedException(String attribute, Object value, String reason) {
        this(attribute + " = " + value + " refused: " + reason, attribute, value, reason);
    }

    /** As {@link #SettingRefusedException(String, Object, String)}, with a message of the thrower's wording. */
    public SettingRefusedException(String message, String attribute, Object value, String reason) {
        super(message);
        this.attribute = attribute;
        this.value = String.valueOf(value);
        this.reason = reason;
    }

    /** The configuration key refused (several joined with {@code +} when a rule spans them). */
    public String attribute() {
        return attribute;
    }

    /** The refused value as text. */
    public String value() {
        return value;
    }

    /** Why it is refused, e.g. {@code must be 1..64}. */
    public String reason() {
        return reason;
    }
}
