package smbdirect.impl.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.impl.osgi.Fakes.props;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import smbdirect.api.AcceptHandler;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.osgi.Fakes.FakeEngines;
import smbdirect.impl.osgi.Fakes.FakeProvider;
import smbdirect.impl.osgi.Fakes.ManualScheduler;
import smbdirect.impl.osgi.Fakes.RecordingHandler;

class SmbDirectListenerComponentTest {

    private final FakeEngines engines = new FakeEngines();
    private final MultiProviderTransport transport = new MultiProviderTransport(engines, new ManualScheduler(),
            TransportSettings.DEFAULTS, ProviderFilter.ANY);
    private final ListenerHost host = transport::openConfigured;

    private static ListenerConfig config(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return Fakes.config(ListenerConfig.class, m);
    }

    @Test
    void listenerWaitsUntilAnAcceptHandlerIsBoundAndHandsConnectionsToIt() {
        transport.addProvider(new FakeProvider("a"), props("a", 0, 1));
        SmbDirectListenerComponent c = new SmbDirectListenerComponent(host,
                config("name", "files", "bindAddress", "10.0.0.1", "port", 4450,
                        "acceptHandler.target", "(role=smb)"));
        ListenerDTO dto = c.listener().getListenerDTO();
        assertEquals("files", dto.name);
        assertEquals("10.0.0.1:4450", dto.address);
        assertEquals("WAITING", dto.state);
        assertEquals("no AcceptHandler service matches (role=smb)", dto.stateDetail);

        RecordingHandler h1 = new RecordingHandler();
        RecordingHandler h2 = new RecordingHandler();
        AcceptHandler first = conn -> h1;
        AcceptHandler better = conn -> h2;
        c.bindAcceptHandler(first);
        assertEquals("OPEN", c.listener().getListenerDTO().state);
        assertEquals(h1, Fakes.upper(engines.get("a").arrive(4450, new InetSocketAddress("10.0.0.2", 1)).handler));

        // greedy replacement: DS binds the better handler, then unbinds the old one
        c.bindAcceptHandler(better);
        c.unbindAcceptHandler(first);
        ConnectionHandler got = Fakes.upper(engines.get("a").arrive(4450, new InetSocketAddress("10.0.0.2", 2)).handler);
        assertEquals(h2, got);

        c.unbindAcceptHandler(better);
        assertEquals("WAITING", c.listener().getListenerDTO().state);
        assertNull(engines.get("a").arrive(4450, new InetSocketAddress("10.0.0.2", 3)));

        c.deactivate();
        assertEquals(0, transport.getTransportDTO().listeners.length);
    }

    @Test
    void aConfiguredListenerNamesItsAcceptHandlerFilterFromTheMomentItIsVisible() {
        transport.addProvider(new FakeProvider("a"), props("a", 0, 1));
        ListenerDTO[] firstSeen = new ListenerDTO[1];
        ListenerHost observing = (name, address, filter, whyWaiting) -> {
            RelocatingListener l = transport.openConfigured(name, address, filter, whyWaiting);
            firstSeen[0] = transport.getTransportDTO().listeners[0]; // what another thread may see now
            return l;
        };
        new SmbDirectListenerComponent(observing, config("name", "files", "bindAddress", "10.0.0.1", "port", 4450,
                "acceptHandler.target", "(role=smb)"));
        assertEquals("WAITING", firstSeen[0].state);
        assertEquals("no AcceptHandler service matches (role=smb)", firstSeen[0].stateDetail);
    }

    @Test
    void badListenerConfigurationFailsNamingTheAttribute() {
        IllegalArgumentException port = assertThrows(IllegalArgumentException.class,
                () -> new SmbDirectListenerComponent(host, config("port", 70000)));
        assertTrue(port.getMessage().contains("port=70000"), port.getMessage());
        IllegalArgumentException filter = assertThrows(IllegalArgumentException.class,
                () -> new SmbDirectListenerComponent(host, config("provider.target", "(broken")));
        assertTrue(filter.getMessage().contains("provider.target=(broken"), filter.getMessage());
        IllegalArgumentException address = assertThrows(IllegalArgumentException.class,
                () -> new SmbDirectListenerComponent(host, config("bindAddress", " ")));
        assertTrue(address.getMessage().contains("bindAddress"), address.getMessage());
    }

    @Test
    void defaultsListenOnTheSmbPortOfEveryAddress() {
        InetSocketAddress a = SmbDirectListenerComponent.address(config());
        assertEquals(445, a.getPort());
        assertTrue(a.getAddress().isAnyLocalAddress());
    }
}
