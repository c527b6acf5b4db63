package smbdirect.ops.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.impl.control.ConnectionControl;

/** {@code smbd:close} closes any live connection by id through the transport's connection control. */
class SmbdCommandsCloseTest {

    private record Call(long id, String provider, CloseReason reason) {
    }

    private final List<Call> calls = new CopyOnWriteArrayList<>();

    private SmbdCommands commands(ConnectionControl control) {
        return new SmbdCommands(null, null, control);
    }

    @Test
    void closesAnyConnectionByIdWithTheOperatorReason() throws Exception {
        SmbdCommands c = commands((id, provider, reason) -> {
            calls.add(new Call(id, provider, reason));
            return CompletableFuture.completedFuture(null);
        });

        assertEquals("connection 7 closed\n", c.close(7));

        assertEquals(List.of(new Call(7, null, SmbdCommands.OPERATOR_CLOSE)), calls);
        assertEquals(CloseReason.Kind.LOCAL_CLOSE, SmbdCommands.OPERATOR_CLOSE.kind());
        assertEquals("closed by operator (smbd:close)", SmbdCommands.OPERATOR_CLOSE.detail());
    }

    @Test
    void theProviderNamedIsPassedOn() throws Exception {
        SmbdCommands c = commands((id, provider, reason) -> {
            calls.add(new Call(id, provider, reason));
            return CompletableFuture.completedFuture(null);
        });

        assertEquals("connection 3 closed\n", c.close(3, "mock-b"));

        assertEquals(List.of(new Call(3, "mock-b", SmbdCommands.OPERATOR_CLOSE)), calls);
    }

    @Test
    void unknownIdSaysSo() throws Exception {
        SmbdCommands c = commands((id, provider, reason) -> null);

        assertEquals("no live connection 42 (see smbd:connections)\n", c.close(42));
        assertEquals("no live connection 42 on provider x (see smbd:connections)\n", c.close(42, "x"));
    }

    @Test
    void anIdLiveOnTwoProvidersAsksForTheProvider() throws Exception {
        SmbdCommands c = commands((id, provider, reason) -> {
            throw new IllegalArgumentException("connection id " + id + " is live on providers [a, b]; name the provider");
        });

        String out = c.close(1);

        assertTrue(out.startsWith("close: connection id 1 is live on providers [a, b]"), out);
        assertTrue(out.contains("smbd:close 1 PROVIDER"), out);
    }

    @Test
    void aCloseThatDoesNotCompleteIsReported() throws Exception {
        SmbdCommands c = commands((id, provider, reason) -> CompletableFuture.failedFuture(new IllegalStateException("stuck")));

        String out = c.close(5);

        assertTrue(out.startsWith("closing connection 5 did not complete"), out);
        assertTrue(out.contains("stuck"), out);
    }
}
