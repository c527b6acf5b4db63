package smbdirect.impl.osgi.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.osgi.service.metatype.AttributeDefinition;

import smbdirect.api.settings.SettingRefusedException;

class SettingsCheckTest {

    /** An attribute definition with an optional range, validated as Felix's metatype does. */
    private record Ad(String id, int type, Long min, Long max, String[] options) implements AttributeDefinition {
        static Ad of(String id, int type) {
            return new Ad(id, type, null, null, null);
        }

        @Override
        public String getName() {
            return id;
        }

        @Override
        public String getID() {
            return id;
        }

        @Override
        public String getDescription() {
            return "";
        }

        @Override
        public int getCardinality() {
            return 0;
        }

        @Override
        public int getType() {
            return type;
        }

        @Override
        public String[] getOptionValues() {
            return options;
        }

        @Override
        public String[] getOptionLabels() {
            return options;
        }

        @Override
        public String validate(String value) {
            if (min == null) {
                return null;
            }
            long v = Long.parseLong(value.strip());
            return v < min || v > max ? "not in [" + min + ", " + max + "]" : "";
        }

        @Override
        public String[] getDefaultValue() {
            return null;
        }
    }

    private static final Map<String, AttributeDefinition> ATTRIBUTES = Map.of(
            "receiveCreditMax", new Ad("receiveCreditMax", AttributeDefinition.INTEGER, 1L, 65535L, null),
            "crc", Ad.of("crc", AttributeDefinition.BOOLEAN),
            "creditRefillFraction", Ad.of("creditRefillFraction", AttributeDefinition.DOUBLE),
            "peerToPeer", new Ad("peerToPeer", AttributeDefinition.STRING, null, null, new String[] {"NONE", "READ"}),
            "provider.target", Ad.of("provider.target", AttributeDefinition.STRING));

    private static List<SettingsCheck.Problem> check(Object... keyValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put((String) keyValues[i], keyValues[i + 1]);
        }
        return SettingsCheck.check(ATTRIBUTES, m);
    }

    @Test
    void aMisspeltBooleanIsRefusedNotTakenAsFalse() {
        List<SettingsCheck.Problem> p = check("crc", "ture");
        assertEquals(1, p.size());
        assertTrue(p.get(0).refused());
        assertEquals("crc = ture refused (not true or false)", p.get(0).text());
        assertTrue(check("crc", "FALSE").isEmpty());
        assertTrue(check("crc", Boolean.TRUE).isEmpty());
    }

    @Test
    void numbersAreParsedStrictly() {
        assertEquals("receiveCreditMax = 44x5 refused (not a whole number)", check("receiveCreditMax", "44x5").get(0).text());
        assertEquals("receiveCreditMax = 1.5 refused (not a whole number)", check("receiveCreditMax", "1.5").get(0).text());
        assertEquals("receiveCreditMax = 99999999999 refused (out of the range of its type)",
                check("receiveCreditMax", "99999999999").get(0).text());
        assertEquals("creditRefillFraction = 0,5 refused (not a number)", check("creditRefillFraction", "0,5").get(0).text());
        assertTrue(check("receiveCreditMax", " 64 ", "creditRefillFraction", "0.5").isEmpty());
    }

    @Test
    void aValueOutsideTheRangeOrTheOptionsIsRefusedWithTheMetatypesReason() {
        assertEquals("receiveCreditMax = 0 refused (not in [1, 65535])", check("receiveCreditMax", 0).get(0).text());
        assertEquals("peerToPeer = BOTH refused (not one of NONE, READ)", check("peerToPeer", "BOTH").get(0).text());
    }

    @Test
    void anUnknownKeyIsReportedWithTheNearestKnownNameButNotRefused() {
        List<SettingsCheck.Problem> p = check("recieveCreditMax", "64");
        assertEquals(1, p.size());
        assertFalse(p.get(0).refused());
        assertEquals("recieveCreditMax = 64 ignored (no such setting; did you mean receiveCreditMax?)", p.get(0).text());
        assertEquals("somethingElseEntirely = 1 ignored (no such setting)", check("somethingElseEntirely", "1").get(0).text());
    }

    @Test
    void frameworkPropertiesAndReferenceTargetsAreNoUnknownKeys() {
        assertTrue(check("service.pid", "x", "felix.fileinstall.filename", "file:/x.cfg", "providers.target", "(a=b)",
                ".private", "1").isEmpty());
    }

    @Test
    void refusalsComeBeforeUnknownKeys() {
        List<SettingsCheck.Problem> p = check("recieveCreditMax", "64", "crc", "ture");
        assertTrue(p.get(0).refused());
        assertFalse(p.get(1).refused());
    }

    @Test
    void theNearestNameIsOnlyGivenWhenItIsNear() {
        List<String> known = List.of("smbdirect.transport", "smbdirect.listener", "smbdirect.rdma.iwarp");
        assertEquals("smbdirect.transport", SettingsCheck.nearest("smbdirect.transprt", known));
        assertEquals("smbdirect.listener", SettingsCheck.nearest("smbdirect.listner", known));
        assertEquals("smbdirect.rdma.iwarp", SettingsCheck.nearest("smbdirect.rdma.iwrap", known));
        assertNull(SettingsCheck.nearest("org.apache.karaf.shell", known));
    }

    @Test
    void theConsolePasswordMayNotBeTheFelixDefault() {
        SettingRefusedException e = assertThrows(SettingRefusedException.class,
                () -> new ConsolePasswordCheck().check(Map.of("password", "admin")));
        assertEquals("password", e.attribute());
        assertEquals("(hidden)", e.value(), "the password is never shown");
        assertEquals("the Felix default password (admin) or none is refused", e.reason());
        assertThrows(SettingRefusedException.class, () -> new ConsolePasswordCheck().check(Map.of("password", " ")));
        new ConsolePasswordCheck().check(Map.of("password", "{sha-256}abc"));
    }
}
