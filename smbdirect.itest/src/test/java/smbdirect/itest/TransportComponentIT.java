package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import javax.inject.Inject;

import org.junit.After;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

import smbdirect.api.ListenerEvent;
import smbdirect.api.ListenerEventHandler;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.testkit.VerifiedTraffic;

/** The bundles in Felix: resolution, components, Metatype, configuration through Config Admin. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class TransportComponentIT extends FelixSupport {

    @Inject
    SmbDirectTransport transport;

    @Inject
    ServiceComponentRuntime scr;

    @Inject
    MetaTypeService metaType;

    @Configuration
    public Option[] config() {
        return felixOptions();
    }

    @After
    public void resetConfiguration() throws Exception {
        org.osgi.service.cm.Configuration[] left = configAdmin.listConfigurations("(service.pid=smbdirect.transport)");
        if (left != null) {
            for (org.osgi.service.cm.Configuration c : left) {
                c.delete();
            }
        }
        await("defaults back in force", () -> transport.getTransportDTO().settings.receiveCreditMax == 255);
    }

    @Test
    public void everyBundleIsActiveAndEveryComponentIsActive() {
        for (Bundle b : context.getBundles()) {
            if (b.getHeaders().get("Fragment-Host") == null) {
                assertEquals(b.getSymbolicName() + " is active", Bundle.ACTIVE, b.getState());
            }
        }
        for (String bsn : List.of("smbdirect.impl", "smbdirect.rdma.mock")) {
            for (ComponentDescriptionDTO d : scr.getComponentDescriptionDTOs(installedBundle(bsn))) {
                assertTrue(d.name + " enabled", scr.isComponentEnabled(d));
                Collection<ComponentConfigurationDTO> configs = scr.getComponentConfigurationDTOs(d);
                if ("require".equals(d.configurationPolicy)) {
                    continue; // factory components exist per configuration (tested with listeners)
                }
                assertEquals(d.name + " has one configuration", 1, configs.size());
                ComponentConfigurationDTO c = configs.iterator().next();
                if (!d.immediate && c.state == ComponentConfigurationDTO.SATISFIED) {
                    continue; // a delayed service (Web Console page, health check) activates when first used
                }
                assertEquals(d.name + " is ACTIVE (" + c.failure + ")", ComponentConfigurationDTO.ACTIVE, c.state);
            }
        }
        ComponentDescriptionDTO transportComponent = scr.getComponentDescriptionDTO(installedBundle("smbdirect.impl"),
                "smbdirect.transport");
        assertNotNull(transportComponent);
        assertTrue(transportComponent.immediate);
    }

    @Test
    public void metatypeDescribesTransportAndListenerPids() {
        MetaTypeInformation info = metaType.getMetaTypeInformation(installedBundle("smbdirect.impl"));
        assertTrue(Arrays.asList(info.getPids()).contains("smbdirect.transport"));
        assertTrue(Arrays.asList(info.getFactoryPids()).contains("smbdirect.listener"));

        ObjectClassDefinition transportOcd = info.getObjectClassDefinition("smbdirect.transport", null);
        assertEquals("SMB Direct Transport", transportOcd.getName());
        AttributeDefinition[] ads = transportOcd.getAttributeDefinitions(ObjectClassDefinition.ALL);
        Set<String> ids = Arrays.stream(ads).map(AttributeDefinition::getID).collect(Collectors.toSet());
        for (String id : List.of("receiveCreditMax", "sendCreditTarget", "maxSendSize", "maxReceiveSize",
                "maxFragmentedRecvSize", "maxReadWriteSize", "keepaliveIntervalSeconds",
                "keepaliveResponseTimeoutSeconds", "activeNegotiationTimeoutSeconds",
                "passiveNegotiationTimeoutSeconds", "creditGrantTimeoutMillis", "creditRefillFraction",
                "inboundReadDepth", "outboundReadDepth", "maxConnectionsPerListener", "maxNegotiatingPerListener",
                "receiveBufferBudgetMB", "drainTimeoutSeconds", "provider.target")) {
            assertTrue("attribute " + id, ids.contains(id));
        }
        AttributeDefinition maxReceiveSize = Arrays.stream(ads).filter(a -> a.getID().equals("maxReceiveSize"))
                .findFirst().orElseThrow();
        assertEquals("8192", maxReceiveSize.getDefaultValue()[0]);
        assertTrue(maxReceiveSize.validate("100").length() > 0);
        assertEquals("", maxReceiveSize.validate("8192"));

        ObjectClassDefinition listenerOcd = info.getObjectClassDefinition("smbdirect.listener", null);
        Set<String> listenerIds = Arrays.stream(listenerOcd.getAttributeDefinitions(ObjectClassDefinition.ALL))
                .map(AttributeDefinition::getID).collect(Collectors.toSet());
        assertTrue(listenerIds.containsAll(List.of("name", "bindAddress", "port", "provider.target",
                "acceptHandler.target", "webconsole.configurationFactory.nameHint")));
    }

    /** Negotiates a connection to ourselves over the default mock provider; returns our active end's DTO. */
    private ConnectionDTO negotiate(int port) throws Exception {
        MockProvider mock = mockProvider("mock");
        SmbDirectListener listener = transport.listen(new InetSocketAddress("0.0.0.0", port), c -> new VerifiedTraffic.Receiver());
        try {
            SmbDirectConnection c = transport.connect(new InetSocketAddress(mock.address(), port),
                    Duration.ofSeconds(10), new VerifiedTraffic.Receiver()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            ConnectionDTO dto = c.getConnectionDTO();
            c.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
            return dto;
        } finally {
            listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    public void listenerEventHandlerServicesOfTheWhiteboardAreToldOfEveryListenersEvents() throws Exception {
        List<ListenerEvent> told = new CopyOnWriteArrayList<>();
        ServiceRegistration<ListenerEventHandler> registration = context.registerService(ListenerEventHandler.class,
                told::add, null);
        try {
            negotiate(4450);
            await("the whiteboard service is told of the accepted connection",
                    () -> told.stream().anyMatch(e -> e.kind() == ListenerEvent.Kind.ACCEPTED));
            ListenerEvent accepted = told.get(0);
            assertEquals(ListenerEvent.Kind.ACCEPTED, accepted.kind());
            assertEquals("mock", accepted.provider());
            assertEquals(4450, accepted.listenerAddress().getPort());
        } finally {
            registration.unregister();
        }
        int before = told.size();
        negotiate(4451);
        assertEquals("an unregistered service is told nothing more", before, told.size());
    }

    @Test
    public void configurationChangeReachesNewConnectionsAndARefusedValueLeavesTheOldOne() throws Exception {
        ConnectionDTO before = negotiate(4440);
        assertEquals("ESTABLISHED", before.state);
        assertEquals(255, before.receiveCreditMax);
        assertEquals(1048576, before.maxFragmentedRecvSize);

        configure("smbdirect.transport", "receiveCreditMax", 100, "maxFragmentedRecvSize", 262144);
        await("new settings applied", () -> transport.getTransportDTO().settings.receiveCreditMax == 100);
        ConnectionDTO after = negotiate(4441);
        assertEquals(100, after.receiveCreditMax);
        assertEquals(262144, after.maxFragmentedRecvSize);

        // refused as a whole: maxReceiveSize=100 is below the spec's floor; the settings guard hands the
        // component the last good values and puts them back into Config Admin
        configure("smbdirect.transport", "receiveCreditMax", 50, "maxFragmentedRecvSize", 524288, "maxReceiveSize", 100);
        awaitPutBack("smbdirect.transport", "receiveCreditMax", 100);
        assertEquals("the component never had the refused value", 8192,
                context.getServiceReference(SmbDirectTransport.class).getProperty("maxReceiveSize"));
        ConnectionDTO refused = negotiate(4442);
        assertEquals("the last good value stays", 100, refused.receiveCreditMax);
        assertEquals("the last good value stays", 262144, refused.maxFragmentedRecvSize);
        assertEquals(8192, transport.getTransportDTO().settings.maxReceiveSize);
    }

    @Test
    public void configurationChangeIsAppliedAndARefusedValueLeavesTheOldOne() throws Exception {
        configure("smbdirect.transport", "receiveCreditMax", 100, "keepaliveIntervalSeconds", 30L);
        await("receiveCreditMax=100 applied", () -> transport.getTransportDTO().settings.receiveCreditMax == 100);
        assertEquals(30, transport.getTransportDTO().settings.keepaliveIntervalSeconds);

        configure("smbdirect.transport", "receiveCreditMax", 100, "keepaliveIntervalSeconds", 30L,
                "maxReceiveSize", 100);
        ServiceReference<SmbDirectTransport> ref = context.getServiceReference(SmbDirectTransport.class);
        awaitPutBack("smbdirect.transport", "keepaliveIntervalSeconds", 30L);
        TransportDTO dto = transport.getTransportDTO();
        assertEquals("the refused value is not in force", 8192, dto.settings.maxReceiveSize);
        assertEquals("the last good settings stay", 100, dto.settings.receiveCreditMax);
        assertEquals("the service stays registered", ref.getProperty("service.id"),
                context.getServiceReference(SmbDirectTransport.class).getProperty("service.id"));
    }

    /**
     * Waits until the settings guard put the last good settings of {@code pid} back into Config Admin
     * after a refused change: the refused {@code maxReceiveSize} is gone and {@code key} holds its last
     * good {@code value}.
     */
    private void awaitPutBack(String pid, String key, Object value) throws Exception {
        await("the last good settings of " + pid + " put back into Config Admin", () -> {
            try {
                java.util.Dictionary<String, Object> p = configAdmin.getConfiguration(pid, "?").getProperties();
                return p != null && p.get("maxReceiveSize") == null && value.equals(p.get(key));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }
}
