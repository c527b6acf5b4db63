package smbdirect.ops;

import java.lang.reflect.Field;

import smbdirect.api.dto.SettingsDTO;
import smbdirect.api.settings.ComponentProperties;

/**
 * The one rule by which every operations surface names a DTO field: a setting's field (of
 * {@link SettingsDTO}) by its configuration attribute ({@code provider_target} is
 * {@code provider.target}), so that the shell, the JSON status and JMX show the name an operator
 * writes in {@code etc/}; any other field by its own name.
 */
public final class DtoFieldNames {

    private DtoFieldNames() {
    }

    /** The name {@code f} is shown by. */
    public static String shown(Field f) {
        return f.getDeclaringClass() == SettingsDTO.class ? ComponentProperties.propertyName(f.getName()) : f.getName();
    }
}
