package smbdirect.rdma.iwarp.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.rdma.iwarp.IwarpProvider;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.RtrMode;

/** The component's logic without a framework: validation, registration, re-registration on change. */
class IwarpProviderLifecycleTest {

    /** Registrations a fake framework holds: provider and properties, removed when unregistered. */
    private final List<Map.Entry<RdmaProvider, Dictionary<String, Object>>> registered = new ArrayList<>();
    private final IwarpProviderLifecycle lifecycle = new IwarpProviderLifecycle((provider, properties) -> {
        Map.Entry<RdmaProvider, Dictionary<String, Object>> e = Map.entry(provider, properties);
        registered.add(e);
        return () -> registered.remove(e);
    }, IwarpProvider::open);

    @AfterEach
    void stop() {
        lifecycle.stop();
        assertTrue(registered.isEmpty(), "stop unregisters");
    }

    @Test
    void theDefaultsRegisterTheProviderWithItsServiceProperties() {
        assertEquals(IwarpProviderLifecycle.Outcome.APPLIED, lifecycle.configure(config(Map.of())));
        assertEquals(1, registered.size());
        Dictionary<String, Object> props = registered.get(0).getValue();
        assertEquals("iwarp", props.get(RdmaProvider.PROVIDER_NAME));
        assertEquals("IWARP", props.get(RdmaProvider.TRANSPORT_TYPE));
        assertEquals(50, props.get("service.ranking"));
        assertArrayEquals(new String[] {"127.0.0.1:5445"}, (String[]) props.get("smbdirect.iwarp.listenAddresses"));
        assertEquals(IwarpSettings.defaults(), lifecycle.settings());
        assertTrue(lifecycle.provider().isOpen());
    }

    @Test
    void everyAttributeReachesTheSettings() {
        lifecycle.configure(config(Map.ofEntries(Map.entry("listenAddresses", new String[] {"127.0.0.1", "*:5445"}),
                Map.entry("crc", false), Map.entry("maxFpduSize", 9000), Map.entry("ioThreads", 3),
                Map.entry("mpaRequestTimeoutMillis", 100), Map.entry("mpaReplyTimeoutMillis", 200),
                Map.entry("tcpNoDelay", false), Map.entry("sendBufferSize", 65536),
                Map.entry("receiveBufferSize", 131072), Map.entry("maxConnections", 7), Map.entry("maxPendingConnections", 5),
                Map.entry("mpaRevision", 1),
                Map.entry("peerToPeer", "NONE"), Map.entry("maxReadDepth", 32), Map.entry("firstFpduDelayMillis", 500))));
        assertEquals(new IwarpSettings(List.of("127.0.0.1", "*:5445"), false, 9000, 3, 100, 200, false, 65536, 131072,
                7, 5, 1, RtrMode.NONE, 32, 500), lifecycle.settings());
    }

    @Test
    void listenAddressesMayListSeveralEntriesInOneValueSeparatedByCommas() {
        lifecycle.configure(config(Map.of("listenAddresses", new String[] {"127.0.0.1:5445, [::1]:5445", "*:4445"})));
        assertEquals(List.of("127.0.0.1:5445", "[::1]:5445", "*:4445"), lifecycle.settings().listenAddresses());
        lifecycle.configure(config(Map.of("listenAddresses", new String[] {" , "})));
        assertEquals(List.of(), lifecycle.settings().listenAddresses(), "no entry: the provider only connects");
    }

    @Test
    void aBadValueIsRefusedNamingTheAttributeAndTheRunningProviderStays() {
        lifecycle.configure(config(Map.of()));
        IwarpProvider before = lifecycle.provider();
        assertEquals(IwarpProviderLifecycle.Outcome.REFUSED, lifecycle.configure(config(Map.of("maxFpduSize", 1461))));
        assertTrue(lifecycle.lastRefusal().contains("maxFpduSize = 1461"), lifecycle.lastRefusal());
        assertSame(before, lifecycle.provider());
        assertTrue(before.isOpen());
        assertEquals(1, registered.size());
        assertEquals(IwarpProviderLifecycle.Outcome.REFUSED,
                lifecycle.configure(config(Map.of("listenAddresses", new String[] {"example.com"}))));
        assertTrue(lifecycle.lastRefusal().contains("listenAddresses = example.com"), lifecycle.lastRefusal());
        assertEquals(IwarpProviderLifecycle.Outcome.REFUSED, lifecycle.configure(config(Map.of("peerToPeer", "SOMETIMES"))));
        assertTrue(lifecycle.lastRefusal().contains("peerToPeer = SOMETIMES"), lifecycle.lastRefusal());
        assertEquals(IwarpSettings.defaults(), lifecycle.settings());
    }

    @Test
    void aBadFirstConfigurationRegistersNothing() {
        assertEquals(IwarpProviderLifecycle.Outcome.REFUSED, lifecycle.configure(config(Map.of("ioThreads", 0))));
        assertTrue(registered.isEmpty());
        assertNull(lifecycle.provider());
        assertEquals(IwarpProviderLifecycle.Outcome.APPLIED, lifecycle.configure(config(Map.of())));
        assertEquals(1, registered.size());
    }

    @Test
    void theSameValuesAgainChangeNothing() {
        lifecycle.configure(config(Map.of()));
        IwarpProvider before = lifecycle.provider();
        assertEquals(IwarpProviderLifecycle.Outcome.UNCHANGED, lifecycle.configure(config(Map.of())));
        assertSame(before, lifecycle.provider());
    }

    @Test
    void aChangeClosesTheOldProviderItsListenersAndConnectionsAndRegistersANewOne() throws Exception {
        lifecycle.configure(config(Map.of("listenAddresses", new String[] {"127.0.0.1"})));
        IwarpProvider old = lifecycle.provider();
        CompletableFuture<DisconnectCause> listenerEnd = new CompletableFuture<>();
        old.listen(new InetSocketAddress("127.0.0.1", 0), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                listenerEnd.complete(cause);
            }
        });
        CompletableFuture<DisconnectCause> endpointEnd = new CompletableFuture<>();
        var endpoint = old.createEndpoint(new smbdirect.api.rdma.EndpointSettings(2, 2),
                new smbdirect.api.rdma.RdmaEndpointHandler() {
                    @Override
                    public void onEstablished(ByteBuffer peerPrivateData) {
                    }

                    @Override
                    public void onCompletion(smbdirect.api.rdma.WorkCompletion completion) {
                    }

                    @Override
                    public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
                        endpointEnd.complete(cause);
                    }
                });
        assertEquals(IwarpProviderLifecycle.Outcome.APPLIED,
                lifecycle.configure(config(Map.of("listenAddresses", new String[] {"127.0.0.1"}, "crc", false))));
        assertEquals(DisconnectCause.PROVIDER_SHUTDOWN, listenerEnd.get(10, TimeUnit.SECONDS));
        assertEquals(DisconnectCause.PROVIDER_SHUTDOWN, endpointEnd.get(10, TimeUnit.SECONDS));
        endpoint.close();
        assertFalse(old.isOpen());
        assertNotSame(old, lifecycle.provider());
        assertEquals(1, registered.size());
        assertSame(lifecycle.provider(), registered.get(0).getKey());
        assertFalse(lifecycle.settings().crc());
    }

    /** An {@link IwarpConfiguration} with the Metatype defaults, overridden by {@code values}. */
    @Test
    void aMisspeltBooleanOrANumberWithLettersIsRefusedNotTakenAsFalseOrZero() {
        lifecycle.configure(config(Map.of()));
        assertEquals(IwarpProviderLifecycle.Outcome.REFUSED, lifecycle.configure(config(Map.of("crc", false)),
                Map.of("crc", "ture")));
        assertTrue(lifecycle.lastRefusal().contains("crc=ture refused: not true or false"), lifecycle.lastRefusal());
        assertEquals(IwarpProviderLifecycle.Outcome.REFUSED, lifecycle.configure(config(Map.of()),
                Map.of("ioThreads", "4x")));
        assertTrue(lifecycle.lastRefusal().contains("ioThreads=4x refused: not a whole number"), lifecycle.lastRefusal());
        assertEquals(IwarpProviderLifecycle.Outcome.UNCHANGED, lifecycle.configure(config(Map.of()),
                Map.of("crc", " TRUE ", "ioThreads", "2")));
    }

    static IwarpConfiguration config(Map<String, Object> values) {
        return new IwarpConfiguration() {
            private Object get(String name, Object fallback) {
                return values.getOrDefault(name, fallback);
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return IwarpConfiguration.class;
            }

            @Override
            public String[] listenAddresses() {
                return (String[]) get("listenAddresses", new String[] {"127.0.0.1:5445"});
            }

            @Override
            public boolean crc() {
                return (Boolean) get("crc", true);
            }

            @Override
            public int maxFpduSize() {
                return (Integer) get("maxFpduSize", 0);
            }

            @Override
            public int ioThreads() {
                return (Integer) get("ioThreads", 2);
            }

            @Override
            public int mpaRequestTimeoutMillis() {
                return (Integer) get("mpaRequestTimeoutMillis", 5000);
            }

            @Override
            public int mpaReplyTimeoutMillis() {
                return (Integer) get("mpaReplyTimeoutMillis", 10000);
            }

            @Override
            public boolean tcpNoDelay() {
                return (Boolean) get("tcpNoDelay", true);
            }

            @Override
            public int sendBufferSize() {
                return (Integer) get("sendBufferSize", 0);
            }

            @Override
            public int receiveBufferSize() {
                return (Integer) get("receiveBufferSize", 0);
            }

            @Override
            public int maxConnections() {
                return (Integer) get("maxConnections", 1024);
            }

            @Override
            public int maxPendingConnections() {
                return (Integer) get("maxPendingConnections", 128);
            }

            @Override
            public int mpaRevision() {
                return (Integer) get("mpaRevision", 2);
            }

            @Override
            public String peerToPeer() {
                return (String) get("peerToPeer", "NONE");
            }

            @Override
            public int maxReadDepth() {
                return (Integer) get("maxReadDepth", 16);
            }

            @Override
            public int firstFpduDelayMillis() {
                return (Integer) get("firstFpduDelayMillis", 0);
            }

            @Override
            public int service_ranking() {
                return (Integer) get("service.ranking", 50);
            }
        };
    }
}
