package smbdirect.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * {@code RdmaCompletion}, the former name of {@link RdmaCompletionHandler}, still works as a
 * connection's RDMA completion: the deprecated overloads of {@link SmbDirectConnection} hand it to the
 * implementation's {@code RdmaCompletionHandler} form, and a lambda goes to that form directly.
 */
@SuppressWarnings("removal")
class RdmaCompletionAliasTest {

    /** The handlers the implementation's rdmaWrite and rdmaRead were given. */
    private final List<RdmaCompletionHandler> given = new ArrayList<>();
    /** How many calls came through the deprecated forms. */
    private int viaFormerType;

    /** A connection implementing only the two abstract RDMA methods; the defaults run as declared. */
    private final SmbDirectConnection connection = (SmbDirectConnection) Proxy.newProxyInstance(
            getClass().getClassLoader(), new Class<?>[] { SmbDirectConnection.class }, handler());

    private InvocationHandler handler() {
        return (proxy, method, args) -> {
            if (method.isDefault()) {
                if (method.getParameterCount() == 6 && method.getParameterTypes()[5] == RdmaCompletion.class) {
                    viaFormerType++;
                }
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            if ((method.getName().equals("rdmaWrite") || method.getName().equals("rdmaRead"))
                    && method.getParameterTypes()[5] == RdmaCompletionHandler.class) {
                given.add((RdmaCompletionHandler) args[5]);
                return null;
            }
            throw new UnsupportedOperationException(method.toString());
        };
    }

    @Test
    void aCompletionOfTheFormerTypeIsToldTheOutcomeThroughTheNewForm() {
        long[] bytes = new long[2];
        Throwable[] failures = new Throwable[2];
        RdmaCompletion write = (n, failure) -> {
            bytes[0] = n;
            failures[0] = failure;
        };
        RdmaCompletion read = (n, failure) -> {
            bytes[1] = n;
            failures[1] = failure;
        };
        connection.rdmaWrite(null, 0, 4096, List.of(), 0, write);
        connection.rdmaRead(null, 0, 512, List.of(), 0, read);

        assertEquals(2, given.size());
        assertEquals(2, viaFormerType);
        IllegalStateException broken = new IllegalStateException("connection lost");
        given.get(0).rdmaComplete(4096, null);
        given.get(1).rdmaComplete(0, broken);
        assertEquals(4096, bytes[0]);
        assertEquals(null, failures[0]);
        assertEquals(0, bytes[1]);
        assertSame(broken, failures[1]);
    }

    @Test
    void aHandlerIsPassedOnAsItIsAndALambdaTakesTheNewForm() {
        RdmaCompletionHandler handler = (n, failure) -> { };
        RdmaCompletion asFormerType = handler;
        connection.rdmaWrite(null, 0, 1, List.of(), 0, asFormerType);
        assertEquals(1, viaFormerType);
        assertSame(handler, given.get(0), "not wrapped: it already is a handler");

        connection.rdmaRead(null, 0, 1, List.of(), 0, handler);
        connection.rdmaRead(null, 0, 1, List.of(), 0, (n, failure) -> { });
        connection.rdmaWrite(null, 0, 1, List.of(), 0, null);

        assertEquals(1, viaFormerType, "a handler, a lambda and null take the RdmaCompletionHandler form");
        assertSame(handler, given.get(1));
        assertEquals(4, given.size());
    }
}
