package smbdirect.impl.engine;

import smbdirect.api.settings.SettingRefusedException;

/**
 * A transport setting was refused: names the attribute, the offending value and the reason. They are
 * data as well ({@link #attribute()}, {@link #value()}, {@link #reason()}), so that who catches it
 * never reads them out of the message; the message ({@code attribute=value refused: reason}) is for
 * logs and people.
 */
public final class SettingsException extends SettingRefusedException {

    private static final long serialVersionUID = 1L;

    public SettingsException(String attribute, Object value, String why) {
        super(attribute + "=" + value + " refused: " + why, attribute, value, why);
    }
}
