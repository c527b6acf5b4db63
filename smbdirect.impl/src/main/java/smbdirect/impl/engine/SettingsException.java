package smbdirect.impl.engine;

import smbdirect.api.settings.SettingRefusedException;

/** A transport setting was refused: names the attribute, the offending value and the reason. */
public final class SettingsException extends SettingRefusedException {

    private static final long serialVersionUID = 1L;

    public SettingsException(String attribute, Object value, String why) {
        super(attribute + "=" + value + " refused: " + why, attribute, value, why);
    }
}
