package smbdirect.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.AnnotatedElement;
import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.dto.SettingsDTO;
import smbdirect.api.dto.TransportDTO;

/**
 * The names replaced before 1.0 that are still present: each is the same thing as its new name, and
 * each says, in its annotation, that it goes ({@code forRemoval}, in 2.0.0 as its javadoc and the
 * changelog say), so that a compiler warns whoever still uses it.
 */
@SuppressWarnings("removal")
class DeprecatedAliasesTest {

    @Test
    void remoteAccessNoneIsLocalOnlyUnderItsFormerName() {
        assertSame(RemoteAccess.LOCAL_ONLY, RemoteAccess.NONE);
        assertEquals("LOCAL_ONLY", RemoteAccess.NONE.name());
        assertThrows(IllegalArgumentException.class, () -> RemoteAccess.valueOf("NONE"));
    }

    @Test
    void everyDeprecatedApiNameIsMarkedForRemoval() throws Exception {
        List<AnnotatedElement> aliases = List.of(
                RemoteAccess.class.getField("NONE"),
                RdmaCompletion.class,
                SmbDirectConnection.class.getMethod("rdmaWrite", RegisteredBuffer.class, int.class, int.class,
                        List.class, long.class, RdmaCompletion.class),
                SmbDirectConnection.class.getMethod("rdmaRead", RegisteredBuffer.class, int.class, int.class,
                        List.class, long.class, RdmaCompletion.class),
                SettingsDTO.class.getField("keepaliveIntervalMillis"),
                SettingsDTO.class.getField("keepaliveResponseTimeoutMillis"),
                SettingsDTO.class.getField("activeNegotiationTimeoutMillis"),
                SettingsDTO.class.getField("passiveNegotiationTimeoutMillis"),
                TransportDTO.class.getField("lastNegotiationFailure"));
        for (AnnotatedElement alias : aliases) {
            Deprecated deprecated = alias.getAnnotation(Deprecated.class);
            assertTrue(deprecated != null && deprecated.forRemoval(), alias + " is deprecated for removal");
            assertTrue(!deprecated.since().isEmpty(), alias + " says since when");
        }
    }
}
