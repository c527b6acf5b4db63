package smbdirect.api.settings;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ComponentPropertiesTest {

    enum Mode { NONE, WRITE }

    @interface ExampleConfiguration {
        int port() default 445;

        boolean crc() default true;

        long size() default 1L << 40;

        String[] addresses() default {"127.0.0.1"};

        String name() default "a";

        Mode mode() default Mode.NONE;

        int service_ranking() default 0;

        String required();
    }

    @Test
    void absentPropertiesReadAsTheDefaultsAndTextIsConvertedToTheMethodsType() {
        ExampleConfiguration c = ComponentProperties.read(ExampleConfiguration.class, Map.of("port", " 5445 ", "crc", "false",
                "addresses", "10.0.0.1", "mode", "WRITE", "service.ranking", 50, "size", List.of("7", "8")));
        assertEquals(5445, c.port());
        assertEquals(false, c.crc());
        assertArrayEquals(new String[] {"10.0.0.1"}, c.addresses());
        assertEquals(Mode.WRITE, c.mode());
        assertEquals(50, c.service_ranking());
        assertEquals(7L, c.size(), "the first element where one value is read");
        assertEquals("a", c.name());
    }

    @Test
    void aValueThatDoesNotFitItsTypeIsRefusedByNameInsteadOfReadAsFalseOrZero() {
        SettingRefusedException crc = assertThrows(SettingRefusedException.class,
                () -> ComponentProperties.read(ExampleConfiguration.class, Map.of("crc", "ture")));
        assertEquals("crc", crc.attribute());
        assertEquals("ture", crc.value());
        assertEquals("not true or false", crc.reason());
        SettingRefusedException port = assertThrows(SettingRefusedException.class,
                () -> ComponentProperties.read(ExampleConfiguration.class, Map.of("port", "44x5")));
        assertEquals("port", port.attribute());
        assertEquals("not a whole number", port.reason());
        assertEquals("port = 44x5 refused: not a whole number", port.getMessage());
        assertEquals("port", assertThrows(SettingRefusedException.class,
                () -> ComponentProperties.read(ExampleConfiguration.class, Map.of("port", 1L << 33))).attribute());
        assertEquals("not one of NONE, WRITE", assertThrows(SettingRefusedException.class,
                () -> ComponentProperties.read(ExampleConfiguration.class, Map.of("mode", "READ"))).reason());
    }

    @Test
    void anAbsentPropertyWithoutDefaultReadsAsDeclarativeServicesReadsIt() {
        ExampleConfiguration c = ComponentProperties.read(ExampleConfiguration.class, Map.of());
        assertEquals(null, c.required());
        assertEquals("x", ComponentProperties.read(ExampleConfiguration.class, Map.of("required", "x")).required());
    }

    @Test
    void propertyNamesFollowDeclarativeServices() {
        assertEquals("service.ranking", ComponentProperties.propertyName("service_ranking"));
        assertEquals("a_b", ComponentProperties.propertyName("a__b"));
        assertEquals("a-b", ComponentProperties.propertyName("a$_$b"));
        assertEquals("a$b", ComponentProperties.propertyName("a$$b"));
        assertEquals("ab", ComponentProperties.propertyName("a$b"));
    }
}
