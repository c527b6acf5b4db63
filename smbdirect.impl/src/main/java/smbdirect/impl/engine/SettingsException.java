package smbdirect.impl.engine;

/** A transport setting was refused: names the attribute and the offending value. */
public final class SettingsException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String attribute;
    private final String value;

    public SettingsException(String attribute, Object value, String why) {
        super(attribute + "=" + value + " refused: " + why);
        this.attribute = attribute;
        this.value = String.valueOf(value);
    }

    /** The attribute name, as in the {@code smbdirect.transport} configuration. */
    public String attribute() {
        return attribute;
    }

    /** The refused value as text. */
    public String value() {
        return value;
    }
}
