package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.inject.Inject;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.rdma.mock.MockProvider;

/**
 * The reference file server's component in Felix, configured through Config Admin as an operator
 * does (PID smbdirect.example.fileserver): nothing listens until it is configured; configured, it
 * listens on the mock provider and answers an SMB2 NEGOTIATE ([MS-SMB2] 3.3.5.4); a bad value is
 * refused and the running server keeps serving; a change of port moves it; deleting the
 * configuration closes it.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class FileServerComponentIT extends FelixSupport {

    private static final String PID = "smbdirect.example.fileserver";
    private static final int PORT = 5445;
    private static final int OTHER_PORT = 4445;
    /** [MS-SMB2] 2.2.3: dialect 3.0.2. */
    private static final short SMB_302 = 0x0302;

    @Inject
    SmbDirectTransport transport;

    @Inject
    ServiceComponentRuntime scr;

    @Inject
    MetaTypeService metaType;

    private Path share;

    @Configuration
    public Option[] config() {
        return felixOptions(reactorBundle("smbdirect.example.fileserver"),
                mavenBundle("org.bouncycastle", "bcprov-jdk18on").versionAsInProject());
    }

    @Before
    public void makeShare() throws Exception {
        share = Files.createTempDirectory("fileserver-it");
        Files.writeString(share.resolve("hello.txt"), "hello");
    }

    @After
    public void removeConfigurationAndShare() throws Exception {
        org.osgi.service.cm.Configuration[] left = configAdmin.listConfigurations("(service.pid=" + PID + ")");
        if (left != null) {
            for (org.osgi.service.cm.Configuration c : left) {
                c.delete();
            }
        }
        await("no file server listens", () -> fileServerListener(PORT) == null && fileServerListener(OTHER_PORT) == null);
        try (Stream<Path> files = Files.walk(share)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    public void theBundleIsActiveAndItsComponentWaitsForItsConfiguration() {
        Bundle b = installedBundle("smbdirect.example.fileserver");
        assertEquals(Bundle.ACTIVE, b.getState());
        ComponentDescriptionDTO d = scr.getComponentDescriptionDTO(b, PID);
        assertNotNull("the component is declared", d);
        assertEquals("require", d.configurationPolicy);
        assertTrue("no instance without a configuration", scr.getComponentConfigurationDTOs(d).isEmpty());
        assertNull("nothing listens", fileServerListener(PORT));
    }

    @Test
    public void theMetatypeDescribesEverySettingAndThePasswordIsAPassword() {
        ObjectClassDefinition ocd = metaType.getMetaTypeInformation(installedBundle("smbdirect.example.fileserver"))
                .getObjectClassDefinition(PID, null);
        AttributeDefinition[] all = ocd.getAttributeDefinitions(ObjectClassDefinition.ALL);
        assertEquals(Arrays.asList("shareName", "directory", "listenAddress", "provider", "readOnly", "user",
                "password", "guest", "transport.target"), Arrays.stream(all).map(AttributeDefinition::getID).toList());
        AttributeDefinition password = Arrays.stream(all).filter(a -> a.getID().equals("password")).findFirst()
                .orElseThrow();
        assertEquals(AttributeDefinition.PASSWORD, password.getType());
        AttributeDefinition[] required = ocd.getAttributeDefinitions(ObjectClassDefinition.REQUIRED);
        assertTrue("directory has no default", Arrays.stream(required).anyMatch(a -> a.getID().equals("directory")
                && a.getDefaultValue() == null));
    }

    @Test
    public void configuredItListensAndAnswersNegotiateABadChangeKeepsItAndDeletingStopsIt() throws Exception {
        MockProvider mock = mockProvider("mock");
        org.osgi.service.cm.Configuration config = configure(PID, "directory", share.toString(), "guest", true,
                "listenAddress", "0.0.0.0:" + PORT, "provider", "mock");
        awaitActive();
        ListenerDTO listening = awaitValue("the file server's listener", () -> openListener(PORT));
        assertEquals("mock", listening.provider);
        assertEquals(SMB_302, negotiate(new InetSocketAddress(mock.address(), PORT)));

        // a directory that does not exist: refused by the file server's own check before the component
        // sees it (the settings guard puts the last good settings back), the server keeps serving on its port
        config.update(dictionary("directory", share.resolve("missing").toString(), "guest", true,
                "listenAddress", "0.0.0.0:" + OTHER_PORT, "provider", "mock"));
        await("the last good directory put back", () -> share.toString().equals(config.getProperties().get("directory")));
        assertEquals("the component never had the refused directory", share.toString(), componentProperty("directory"));
        long accepted = openListener(PORT).accepted;
        assertEquals(SMB_302, negotiate(new InetSocketAddress(mock.address(), PORT)));
        assertEquals("the same listener served again", accepted + 1, openListener(PORT).accepted);
        assertNull("nothing opened on the refused port", fileServerListener(OTHER_PORT));

        // a good change: the server moves to its new port
        config.update(dictionary("directory", share.toString(), "guest", true,
                "listenAddress", "0.0.0.0:" + OTHER_PORT, "provider", "mock"));
        awaitValue("the listener on the new port", () -> openListener(OTHER_PORT));
        await("the old port closed", () -> fileServerListener(PORT) == null);
        assertEquals(SMB_302, negotiate(new InetSocketAddress(mock.address(), OTHER_PORT)));

        config.delete();
        await("deleting the configuration closes the server", () -> fileServerListener(OTHER_PORT) == null);
    }

    private void awaitActive() throws InterruptedException {
        ComponentDescriptionDTO d = scr.getComponentDescriptionDTO(installedBundle("smbdirect.example.fileserver"), PID);
        await("the file server component active", () -> {
            Collection<ComponentConfigurationDTO> instances = scr.getComponentConfigurationDTOs(d);
            return instances.size() == 1 && instances.iterator().next().state == ComponentConfigurationDTO.ACTIVE;
        });
    }

    /** A property of the component's one instance, or null. */
    private Object componentProperty(String key) {
        ComponentDescriptionDTO d = scr.getComponentDescriptionDTO(installedBundle("smbdirect.example.fileserver"), PID);
        Collection<ComponentConfigurationDTO> instances = scr.getComponentConfigurationDTOs(d);
        return instances.isEmpty() ? null : instances.iterator().next().properties.get(key);
    }

    /** The transport's listener on {@code port}, or null. */
    private ListenerDTO fileServerListener(int port) {
        ListenerDTO[] all = transport.getTransportDTO().listeners;
        if (all == null) {
            return null;
        }
        for (ListenerDTO l : all) {
            if (l.address != null && l.address.endsWith(":" + port)) {
                return l;
            }
        }
        return null;
    }

    private ListenerDTO openListener(int port) {
        ListenerDTO l = fileServerListener(port);
        return l != null && "OPEN".equals(l.state) ? l : null;
    }

    /**
     * Connects over the transport, sends an SMB2 NEGOTIATE offering dialect 3.0.2 ([MS-SMB2] 2.2.3)
     * and returns the DialectRevision of the response ([MS-SMB2] 2.2.4), after checking its header.
     */
    private short negotiate(InetSocketAddress server) throws Exception {
        BlockingQueue<ByteBuffer> received = new LinkedBlockingQueue<>();
        SmbDirectConnection c = transport.connect(server, Duration.ofSeconds(10), new ConnectionHandler() {
            @Override
            public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
                ByteBuffer p = message.payload();
                ByteBuffer copy = ByteBuffer.allocate(p.remaining()).order(ByteOrder.LITTLE_ENDIAN);
                copy.put(p.duplicate()).flip();
                received.add(copy);
            }

            @Override
            public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            }
        }).toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            c.send(negotiateRequest()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            ByteBuffer response = received.poll(10, TimeUnit.SECONDS);
            assertNotNull("an SMB2 NEGOTIATE response", response);
            assertEquals("ProtocolId", 0x424D53FE, response.getInt(0));
            assertEquals("StructureSize of the header", 64, response.getShort(4));
            assertEquals("Status STATUS_SUCCESS", 0, response.getInt(8));
            assertEquals("Command NEGOTIATE", 0, response.getShort(12));
            assertTrue("Flags: SMB2_FLAGS_SERVER_TO_REDIR", (response.getInt(16) & 1) == 1);
            assertEquals("StructureSize of the response", 65, response.getShort(64));
            return response.getShort(64 + 4);
        } finally {
            c.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** [MS-SMB2] 2.2.1.2 header and 2.2.3 NEGOTIATE request with the one dialect 3.0.2. */
    private static ByteBuffer negotiateRequest() {
        ByteBuffer b = ByteBuffer.allocateDirect(64 + 36 + 2).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0x424D53FE); // 0xFE 'S' 'M' 'B'
        b.putShort((short) 64); // StructureSize
        b.putShort((short) 0); // CreditCharge
        b.putInt(0); // ChannelSequence/Reserved
        b.putShort((short) 0); // Command NEGOTIATE
        b.putShort((short) 1); // CreditRequest
        b.putInt(0); // Flags
        b.putInt(0); // NextCommand
        b.putLong(0); // MessageId
        b.putInt(0); // Reserved (ProcessId)
        b.putInt(0); // TreeId
        b.putLong(0); // SessionId
        b.put(new byte[16]); // Signature
        b.putShort((short) 36); // StructureSize
        b.putShort((short) 1); // DialectCount
        b.putShort((short) 1); // SecurityMode: SMB2_NEGOTIATE_SIGNING_ENABLED
        b.putShort((short) 0); // Reserved
        b.putInt(0); // Capabilities
        b.putLong(0x0123456789abcdefL).putLong(0x0fedcba987654321L); // ClientGuid
        b.putLong(0); // ClientStartTime (no negotiate contexts below 3.1.1)
        b.putShort(SMB_302);
        return b.flip();
    }
}
