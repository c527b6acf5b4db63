package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Value equality of {@link TransportSettings}: found by reflection over its fields, so that a setting
 * added to the class and left out of {@code equals}, {@code hashCode} or {@code toBuilder} fails here.
 */
class TransportSettingsTest {

    /** Every instance field of the settings: one per setting. */
    private static List<Field> settingFields() {
        List<Field> fields = new ArrayList<>();
        for (Field f : TransportSettings.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                fields.add(f);
            }
        }
        assertFalse(fields.isEmpty());
        return fields;
    }

    /** Settings that differ from the defaults in {@code field} alone (a valid value next to the default). */
    private static TransportSettings withOneChanged(Field field) throws ReflectiveOperationException {
        field.setAccessible(true);
        Object value = field.get(TransportSettings.DEFAULTS);
        Object other;
        if (value instanceof Integer i) {
            other = i + 1;
        } else if (value instanceof Long l) {
            other = l + 1;
        } else if (value instanceof Double d) {
            other = d / 2;
        } else if (value instanceof Duration d) {
            other = d.plusSeconds(1);
        } else {
            throw new AssertionError("a setting of a type this test cannot change: " + field);
        }
        Method setter;
        try {
            setter = TransportSettings.Builder.class.getMethod(field.getName(), field.getType());
        } catch (NoSuchMethodException e) {
            throw new AssertionError("the builder has no setter named as the setting " + field.getName(), e);
        }
        TransportSettings.Builder b = TransportSettings.builder();
        setter.invoke(b, other);
        TransportSettings s = b.build();
        assertEquals(other, field.get(s), field.getName());
        return s;
    }

    @Test
    void settingsBuiltFromTheSameValuesAreEqualAndHashAlike() {
        TransportSettings a = TransportSettings.builder().receiveCreditMax(100).keepaliveInterval(Duration.ofSeconds(30))
                .build();
        TransportSettings b = TransportSettings.builder().receiveCreditMax(100).keepaliveInterval(Duration.ofSeconds(30))
                .build();
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertEquals(TransportSettings.DEFAULTS, TransportSettings.builder().build());
        assertNotEquals(a, TransportSettings.DEFAULTS);
        assertNotEquals(null, a);
        assertNotEquals("TransportSettings", a);
    }

    @Test
    void settingsThatDifferInAnyOneSettingAreNotEqual() throws ReflectiveOperationException {
        for (Field f : settingFields()) {
            TransportSettings changed = withOneChanged(f);
            assertNotEquals(TransportSettings.DEFAULTS, changed, "equals ignores " + f.getName());
            assertNotEquals(changed, TransportSettings.DEFAULTS, "equals ignores " + f.getName());
            assertEquals(changed, withOneChanged(f), f.getName());
            assertEquals(changed.hashCode(), withOneChanged(f).hashCode(), f.getName());
        }
    }

    @Test
    void hashCodeTakesEverySettingIntoAccount() throws ReflectiveOperationException {
        // each setting moved by one step from the defaults: a setting left out of hashCode hashes as the defaults
        for (Field f : settingFields()) {
            assertNotEquals(TransportSettings.DEFAULTS.hashCode(), withOneChanged(f).hashCode(),
                    "hashCode ignores " + f.getName());
        }
    }

    @Test
    void toBuilderKeepsEverySetting() throws ReflectiveOperationException {
        for (Field f : settingFields()) {
            TransportSettings changed = withOneChanged(f);
            assertEquals(changed, changed.toBuilder().build(), "toBuilder loses " + f.getName());
        }
    }

    @Test
    void toStringNamesEverySetting() {
        String text = TransportSettings.DEFAULTS.toString();
        for (Field f : settingFields()) {
            assertTrue(text.contains(f.getName() + "="), "toString leaves out " + f.getName());
        }
    }

    @Test
    void everySettingHasAGetterOfItsName() {
        for (Field f : settingFields()) {
            try {
                assertEquals(f.getType(), TransportSettings.class.getMethod(f.getName()).getReturnType(), f.getName());
            } catch (NoSuchMethodException e) {
                fail("no getter " + f.getName() + "()");
            }
        }
    }
}
