package smbdirect.impl.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.TransportDTO;

/**
 * {@link ForwardingTransport} hands every method of {@link SmbDirectTransport} (found by reflection,
 * so a method the interface gains with a default body is checked too) to its delegate, with the
 * caller's arguments, and gives back what the delegate answered or threw.
 */
class ForwardingTransportTest {

    /** One call the delegate received. */
    private record Call(Method method, Object[] args) {
    }

    private static final class Forwarder extends ForwardingTransport {
        Forwarder(SmbDirectTransport delegate) {
            super(delegate);
        }
    }

    /** A value of {@code type} that is told apart from any other by identity. */
    private static Object value(Class<?> type) {
        if (type == InetSocketAddress.class) {
            return InetSocketAddress.createUnresolved("peer", 445);
        }
        if (type == Duration.class) {
            return Duration.ofSeconds(7);
        }
        if (type == String.class) {
            return new String("mock");
        }
        if (type == TransportDTO.class) {
            return new TransportDTO();
        }
        if (type == java.util.concurrent.CompletionStage.class) {
            return new CompletableFuture<>();
        }
        if (type.isInterface()) {
            return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> {
                throw new AssertionError("not to be called: " + m);
            });
        }
        throw new AssertionError("a parameter or result type this test cannot make: " + type);
    }

    @Test
    void everyMethodOfTheInterfaceGoesToTheDelegateWithItsArgumentsAndItsAnswerComesBack() throws Exception {
        List<Call> calls = new ArrayList<>();
        List<Object> answers = new ArrayList<>();
        SmbDirectTransport delegate = (SmbDirectTransport) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {SmbDirectTransport.class}, (proxy, method, args) -> {
                    calls.add(new Call(method, args == null ? new Object[0] : args));
                    Object answer = value(method.getReturnType());
                    answers.add(answer);
                    return answer;
                });
        Forwarder forwarder = new Forwarder(delegate);
        int methods = 0;
        for (Method m : SmbDirectTransport.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            methods++;
            Object[] args = new Object[m.getParameterCount()];
            for (int i = 0; i < args.length; i++) {
                args[i] = value(m.getParameterTypes()[i]);
            }
            calls.clear();
            answers.clear();
            Object result = m.invoke(forwarder, args);
            assertEquals(1, calls.size(), m + " is not forwarded once");
            assertEquals(m, calls.get(0).method(), m.toString());
            assertArrayEquals(args, calls.get(0).args(), m + " changes its arguments");
            for (int i = 0; i < args.length; i++) {
                assertSame(args[i], calls.get(0).args()[i], m + " argument " + i);
            }
            assertSame(answers.get(0), result, m + " does not give back the delegate's answer");
        }
        assertTrue(methods >= 5, "the interface's methods were found");
    }

    @Test
    void whatTheDelegateThrowsReachesTheCaller() {
        SmbDirectException refused = new SmbDirectException(SmbDirectException.Kind.NO_PROVIDER, "none");
        SmbDirectTransport delegate = (SmbDirectTransport) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {SmbDirectTransport.class}, (proxy, method, args) -> {
                    throw refused;
                });
        Forwarder forwarder = new Forwarder(delegate);
        assertSame(refused, assertThrows(SmbDirectException.class,
                () -> forwarder.listen(new InetSocketAddress(0), connection -> null)));
    }

    @Test
    void aForwarderNeedsADelegate() {
        assertThrows(NullPointerException.class, () -> new Forwarder(null));
    }
}
