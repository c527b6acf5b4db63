package smbdirect.impl.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.impl.osgi.LogCapture.logged;
import static smbdirect.impl.transport.Fakes.props;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.api.AcceptHandler;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.impl.config.ConfigurationAnnotations;
import smbdirect.impl.config.ListenerConfiguration;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.osgi.settings.LastGoodSettings;
import smbdirect.impl.transport.Fakes;
import smbdirect.impl.transport.MultiProviderTransport;
import smbdirect.impl.transport.ProviderFilter;
import smbdirect.impl.transport.RelocatingListener;
import smbdirect.impl.transport.Fakes.FakeEngines;
import smbdirect.impl.transport.Fakes.FakeProvider;
import smbdirect.impl.engine.ManualScheduler;
import smbdirect.impl.transport.Fakes.RecordingHandler;

class SmbDirectListenerComponentTest {

    private final FakeEngines engines = new FakeEngines();
    private final MultiProviderTransport transport = new MultiProviderTransport(engines, new ManualScheduler(),
            TransportSettings.DEFAULTS, ProviderFilter.ANY);
    private final ListenerHost host = new ListenerHost() {
        @Override
        public RelocatingListener openConfigured(String name, InetSocketAddress bindAddress, ProviderFilter filter,
                String whyWaiting) {
            return transport.openConfigured(name, bindAddress, filter, whyWaiting);
        }

        @Override
        public void configurationRefused(String key, ListenerDTO shown) {
            transport.configurationRefused(key, shown);
        }
    };

    private static ListenerConfiguration config(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return ConfigurationAnnotations.config(ListenerConfiguration.class, m);
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

    private static Map<String, Object> fromFile(String file, Object... kv) {
        Map<String, Object> m = new HashMap<>();
        m.put("service.pid", "smbdirect.listener~files");
        m.put("felix.fileinstall.filename", "file:" + file);
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void aRefusedFirstConfigurationOpensNothingUntilItIsCorrected() {
        transport.addProvider(new FakeProvider("a"), props("a", 0, 1));
        Map<String, Object> raw = fromFile("/srv/etc/smbdirect.listener-files.cfg", "name", "files", "bindAddress",
                "10.0.0.1", "port", "44x5");
        SmbDirectListenerComponent[] c = new SmbDirectListenerComponent[1];
        List<String> lines = logged(() -> c[0] = new SmbDirectListenerComponent(host, config(), raw));
        List<String> errors = lines.stream().filter(l -> l.contains("ERROR")).toList();
        assertEquals(1, errors.size(), lines.toString());
        assertTrue(errors.get(0).contains("Configuration smbdirect.listener~files from /srv/etc/smbdirect.listener-files.cfg"
                + " not applied, port=44x5 refused: not a whole number (32-bit); the listener is not opened"), errors.get(0));
        assertNull(c[0].listener());
        // no endpoint, yet the listener is shown FAILED with the reason: health and the status page name it
        TransportDTO refused = transport.getTransportDTO();
        assertEquals(1, refused.listeners.length);
        assertEquals("files", refused.listeners[0].name);
        assertEquals("10.0.0.1:44x5", refused.listeners[0].address);
        assertEquals("FAILED", refused.listeners[0].state);
        assertTrue(refused.listeners[0].stateDetail.contains("port=44x5 refused: not a whole number (32-bit)"),
                refused.listeners[0].stateDetail);
        // what health and the status page show (smbdirect.ops reads the listener's state and detail)
        assertTrue(refused.listeners[0].stateDetail.startsWith("configuration smbdirect.listener~files from "
                + "/srv/etc/smbdirect.listener-files.cfg not applied, port=44x5"), refused.listeners[0].stateDetail);

        raw.put("port", "4450");
        c[0].modified(config("name", "files", "bindAddress", "10.0.0.1", "port", 4450), raw);
        assertEquals("10.0.0.1:4450", c[0].listener().getListenerDTO().address);
        assertEquals(1, transport.getTransportDTO().listeners.length, "the corrected listener only");
        assertEquals("10.0.0.1:4450", transport.getTransportDTO().listeners[0].address);
    }

    /**
     * Activates the listener "files" (into {@code c[0]}) over a file whose port is 44x5, where the
     * settings guard kept port {@code keptPort} in {@code lastGood}; returns the lines logged.
     */
    private List<String> activateOverPort44x5(Path lastGood, int keptPort, SmbDirectListenerComponent[] c)
            throws Exception {
        LastGoodSettings.write(lastGood, "smbdirect.listener~files",
                new Hashtable<>(Map.of("name", "files", "bindAddress", "10.0.0.1", "port", keptPort)));
        Map<String, Object> raw = fromFile("/srv/etc/smbdirect.listener-files.cfg", "name", "files", "bindAddress",
                "10.0.0.1", "port", "44x5");
        return logged(() -> c[0] = new SmbDirectListenerComponent(host, config(), raw, lastGood));
    }

    @Test
    void aRefusedConfigurationAtActivationOpensOnTheLastGoodSettingsTheGuardKept(@TempDir Path lastGood) throws Exception {
        transport.addProvider(new FakeProvider("a"), props("a", 0, 1));
        SmbDirectListenerComponent[] c = new SmbDirectListenerComponent[1];
        List<String> lines = activateOverPort44x5(lastGood, 4450, c);
        List<String> errors = lines.stream().filter(l -> l.contains("ERROR")).toList();
        assertEquals(1, errors.size(), lines.toString());
        assertTrue(errors.get(0).contains("Configuration smbdirect.listener~files from /srv/etc/smbdirect.listener-files.cfg"
                + " not applied, port=44x5 refused: not a whole number (32-bit); the listener opens on the last good"
                + " settings, kept in " + lastGood), errors.get(0));
        RelocatingListener opened = c[0].listener();
        assertEquals("10.0.0.1:4450", opened.getListenerDTO().address);
        assertEquals(1, transport.getTransportDTO().listeners.length);
        assertEquals("WAITING", transport.getTransportDTO().listeners[0].state, "open, waiting for its accept handler");

        // the guard puts the last good values back a moment later: the endpoint stays as it is
        c[0].modified(config("name", "files", "bindAddress", "10.0.0.1", "port", 4450),
                fromFile("/srv/etc/smbdirect.listener-files.cfg", "name", "files", "bindAddress", "10.0.0.1", "port", 4450));
        assertSame(opened, c[0].listener());
    }

    @Test
    void aRefusedConfigurationAtActivationWhoseKeptSettingsAreRefusedTooOpensNothing(@TempDir Path lastGood)
            throws Exception {
        SmbDirectListenerComponent[] c = new SmbDirectListenerComponent[1];
        List<String> lines = activateOverPort44x5(lastGood, 70000, c);
        assertTrue(lines.stream().anyMatch(l -> l.contains("ERROR") && l.endsWith("the listener is not opened")),
                lines.toString());
        assertNull(c[0].listener());
        assertEquals("FAILED", transport.getTransportDTO().listeners[0].state);
    }

    @Test
    void aRefusedConfigurationIsNoLongerShownOnceDeleted() {
        Map<String, Object> raw = fromFile("/srv/etc/smbdirect.listener-x.cfg", "name", "x", "bindAddress",
                "10.0.0.1", "port", "4x");
        SmbDirectListenerComponent[] c = new SmbDirectListenerComponent[1];
        logged(() -> c[0] = new SmbDirectListenerComponent(host, config(), raw));
        assertEquals("FAILED", transport.getTransportDTO().listeners[0].state);
        c[0].deactivate();
        assertEquals(0, transport.getTransportDTO().listeners.length);
    }

    @Test
    void aRefusedModificationKeepsTheRunningEndpointAndAnEqualOneLeavesItAlone() {
        transport.addProvider(new FakeProvider("a"), props("a", 0, 1));
        Map<String, Object> raw = fromFile("/srv/etc/smbdirect.listener-files.cfg", "name", "files", "bindAddress",
                "10.0.0.1", "port", "4450");
        SmbDirectListenerComponent c = new SmbDirectListenerComponent(host,
                config("name", "files", "bindAddress", "10.0.0.1", "port", 4450), raw);
        c.bindAcceptHandler(conn -> new RecordingHandler());
        RelocatingListener first = c.listener();
        assertEquals("OPEN", first.getListenerDTO().state);

        for (Object[] bad : new Object[][] { { "port", "70000", 70000 }, { "bindAddress", "no.such.host.invalid", 4450 },
                { "provider.target", "(broken", 4450 } }) {
            Map<String, Object> badRaw = new HashMap<>(raw);
            badRaw.put((String) bad[0], bad[1]);
            List<String> lines = logged(() -> c.modified(config("name", "files", "bindAddress",
                    "bindAddress".equals(bad[0]) ? bad[1] : "10.0.0.1", "port", bad[2], "provider.target",
                    "provider.target".equals(bad[0]) ? bad[1] : ""), badRaw));
            List<String> errors = lines.stream().filter(l -> l.contains("ERROR")).toList();
            assertEquals(1, errors.size(), lines.toString());
            assertTrue(errors.get(0).contains(bad[0] + "=" + bad[1] + " refused")
                    && errors.get(0).endsWith("the listener keeps its last good settings"), errors.get(0));
            assertSame(first, c.listener());
            assertEquals("OPEN", first.getListenerDTO().state);
        }

        // the same endpoint written differently (FileInstall reads text): nothing re-opens
        c.modified(config("name", "files", "bindAddress", "10.0.0.1", "port", 4450, "acceptHandler.target", "(x=y)"), raw);
        assertSame(first, c.listener());

        // another port: the endpoint re-opens there, with the accept handler it had
        raw.put("port", "4451");
        c.modified(config("name", "files", "bindAddress", "10.0.0.1", "port", 4451), raw);
        assertNotSame(first, c.listener());
        assertEquals("CLOSED", first.getListenerDTO().state);
        assertEquals("10.0.0.1:4451", c.listener().getListenerDTO().address);
        assertEquals("OPEN", c.listener().getListenerDTO().state);
        assertEquals(1, transport.getTransportDTO().listeners.length);
    }

    @Test
    void defaultsListenOnTheSmbPortOfEveryAddress() {
        InetSocketAddress a = SmbDirectListenerComponent.address(config());
        assertEquals(445, a.getPort());
        assertTrue(a.getAddress().isAnyLocalAddress());
    }
}
