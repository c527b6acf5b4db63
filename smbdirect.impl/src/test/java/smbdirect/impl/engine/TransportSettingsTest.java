package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import smbdirect.api.dto.SettingsDTO;

/**
 * {@link TransportSettings} as a value and its one mapping to the DTO: the settings are found by
 * reflection over its fields, so that a setting added to the class and left out of {@code equals},
 * {@code hashCode}, {@code toBuilder} or {@code toDTO} fails here.
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
            other = l * 2; // a byte count, shown in MiB
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
    void theDtoShowsEverySettingInOneFieldAndEveryFieldShowsASetting() throws ReflectiveOperationException {
        SettingsDTO defaults = TransportSettings.DEFAULTS.toDTO();
        Set<String> shown = new TreeSet<>();
        for (Field setting : settingFields()) {
            SettingsDTO changed = withOneChanged(setting).toDTO();
            List<String> moved = new ArrayList<>();
            for (Field f : SettingsDTO.class.getFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && !Objects.equals(f.get(defaults), f.get(changed))) {
                    moved.add(f.getName());
                }
            }
            assertEquals(1, moved.size(), setting.getName() + " moves the DTO's " + moved);
            shown.addAll(moved);
        }
        Set<String> fields = new TreeSet<>();
        for (Field f : SettingsDTO.class.getFields()) {
            if (!Modifier.isStatic(f.getModifiers()) && !f.isAnnotationPresent(Deprecated.class)) {
                fields.add(f.getName());
            }
        }
        fields.remove("provider_target"); // the multi-provider transport's selection, not a connection's setting
        assertEquals(fields, shown);
        assertNull(defaults.provider_target);
    }

    @Test
    void theDtoShowsTheSettingsInTheUnitsOfTheirAttributes() {
        SettingsDTO dto = TransportSettings.builder().keepaliveInterval(Duration.ofMinutes(3))
                .creditGrantTimeout(Duration.ofMillis(1500)).receiveBufferBudget(64L << 20)
                .drainTimeout(Duration.ZERO).build().toDTO();
        assertEquals(180, dto.keepaliveIntervalSeconds);
        assertEquals(1500, dto.creditGrantTimeoutMillis);
        assertEquals(64, dto.receiveBufferBudgetMB);
        assertEquals(0, dto.drainTimeoutSeconds);
        assertEquals(5, dto.passiveNegotiationTimeoutSeconds);
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
