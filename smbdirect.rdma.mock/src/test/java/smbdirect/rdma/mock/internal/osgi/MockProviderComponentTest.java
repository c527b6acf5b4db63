package smbdirect.rdma.mock.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.TransportType;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.rdma.mock.RawPeer;

class MockProviderComponentTest {

    /** A configuration as DS would build it: annotation defaults overridden by {@code values}. */
    static MockProviderConfiguration config(Map<String, Object> values) {
        return (MockProviderConfiguration) Proxy.newProxyInstance(MockProviderConfiguration.class.getClassLoader(),
                new Class<?>[] {MockProviderConfiguration.class}, (proxy, method, args) -> {
                    if (method.getName().equals("annotationType")) {
                        return MockProviderConfiguration.class;
                    }
                    Object v = values.get(method.getName());
                    return v != null ? v : method.getDefaultValue();
                });
    }

    @Test
    void defaultComponentIsTheThreadedMockProviderRankedBelowVerbs() throws Exception {
        MockProviderConfiguration defaults = config(Map.of());
        assertEquals("mock", defaults.smbdirect_provider());
        assertEquals(-100, defaults.service_ranking());

        DefaultMockProviderComponent component = new DefaultMockProviderComponent();
        component.activate(defaults);
        assertEquals("mock", component.name());
        assertEquals(TransportType.INFINIBAND, component.transportType());
        assertEquals(DeliveryMode.THREADED, component.fabric().mode());
        assertTrue(component.capabilities().sendWithInvalidate());

        // a raw peer on the component's fabric talks to a listener of the service
        AtomicReference<Thread> callbackThread = new AtomicReference<>();
        CountDownLatch established = new CountDownLatch(1);
        var listener = component.listen(new InetSocketAddress(component.address(), 445), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                callbackThread.set(Thread.currentThread());
                try {
                    var ep = request.createEndpoint(new EndpointSettings(4, 4), new Handler(established, null));
                    ep.accept(new ConnectParameters(null, 1, 1));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                // not expected here
            }
        });
        RawPeer peer = component.fabric().rawPeer();
        peer.connect(listener.localAddress(), null);
        assertTrue(established.await(5, TimeUnit.SECONDS));
        assertTrue(callbackThread.get().getName().startsWith("smbdirect-mock-mock-"));
        assertTrue(callbackThread.get().isDaemon());
        peer.close();
        component.endpoints().forEach(e -> e.close());
        listener.close();
        component.fabric().assertNoLeaks();
        component.deactivate();
        assertThrows(IllegalStateException.class, component::name);
    }

    @Test
    void factoryConfigurationCreatesANamedProviderOnItsOwnFabric() throws Exception {
        assertEquals("smbdirect.rdma.mock", ConfiguredMockProviderComponent.FACTORY_PID);
        ConfiguredMockProviderComponent one = new ConfiguredMockProviderComponent();
        one.activate(config(Map.of("smbdirect_provider", "mock-b", "smbdirect_provider_transport",
                TransportType.IWARP, "sendWithInvalidate", false, "maxSendWorkRequests", 8)));
        ConfiguredMockProviderComponent two = new ConfiguredMockProviderComponent();
        two.activate(config(Map.of("smbdirect_provider", "mock-c")));
        assertEquals("mock-b", one.name());
        assertEquals(TransportType.IWARP, one.transportType());
        assertFalse(one.capabilities().sendWithInvalidate());
        assertEquals(8, one.capabilities().maxSendWorkRequests());
        assertTrue(one.fabric() != two.fabric(), "each configured provider has its own fabric");

        // deactivation shuts the provider down: live endpoints see PROVIDER_SHUTDOWN
        CountDownLatch gone = new CountDownLatch(1);
        AtomicReference<DisconnectCause> cause = new AtomicReference<>();
        MockProvider p = one;
        var ep = p.createEndpoint(new EndpointSettings(4, 4), new Handler(null, dc -> {
            cause.set(dc);
            gone.countDown();
        }));
        ep.postReceive(ep.register(ByteBuffer.allocateDirect(8), java.util.Set.of(smbdirect.api.rdma.MemoryAccess.LOCAL_WRITE)),
                0, 8, 1);
        one.deactivate();
        assertTrue(gone.await(5, TimeUnit.SECONDS));
        assertEquals(DisconnectCause.PROVIDER_SHUTDOWN, cause.get());
        two.deactivate();
    }

    @Test
    void badCapabilitiesAreRefusedNamingTheAttribute() {
        ConfiguredMockProviderComponent c = new ConfiguredMockProviderComponent();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> c.activate(config(Map.of("maxSge", 0))));
        assertTrue(e.getMessage().contains("maxSge"), e.getMessage());
    }

    private record Handler(CountDownLatch established, java.util.function.Consumer<DisconnectCause> disconnected)
            implements RdmaEndpointHandler {
        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
            if (established != null) {
                established.countDown();
            }
        }

        @Override
        public void onCompletion(WorkCompletion completion) {
            // flushes at shutdown
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
            if (disconnected != null) {
                disconnected.accept(cause);
            }
        }
    }
}
