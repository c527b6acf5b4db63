package smbdirect.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import smbdirect.api.dto.TransportDTO;

/**
 * What 1.0.0 keeps of the names replaced during development: the aliases are gone, and the one
 * deprecated member left says, in its annotation, that it goes ({@code forRemoval}, in 2.0.0 as its
 * javadoc and the changelog say), so that a compiler warns whoever still reads it.
 */
class DeprecatedAliasesTest {

    @Test
    void theFormerNameOfLocalOnlyIsGone() {
        assertThrows(IllegalArgumentException.class, () -> RemoteAccess.valueOf("NONE"));
        assertThrows(NoSuchFieldException.class, () -> RemoteAccess.class.getField("NONE"));
        assertEquals(RemoteAccess.LOCAL_ONLY, RemoteAccess.values()[0]);
    }

    @Test
    void theFormerRdmaCallbackTypeIsGone() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("smbdirect.api.RdmaCompletion"));
        assertEquals(0, RdmaCompletionHandler.class.getInterfaces().length, "extends nothing");
    }

    @Test
    void theLastFailureTextIsDeprecatedForRemoval() throws Exception {
        Deprecated deprecated = TransportDTO.class.getField("lastNegotiationFailure").getAnnotation(Deprecated.class);
        assertTrue(deprecated != null && deprecated.forRemoval(), "marked for removal");
        assertEquals("1.1", deprecated.since());
    }
}
