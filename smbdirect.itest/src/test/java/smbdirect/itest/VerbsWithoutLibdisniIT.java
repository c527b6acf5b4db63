package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.systemPackage;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.testkit.VerifiedTraffic;

/**
 * The verbs provider installed next to the mock on a machine without libdisni (and, on JDK 22+,
 * without an RDMA device for its rdma-core backend): it registers no provider, says why, and the
 * transport keeps serving over the mock. The test JVM's {@code java.library.path} has no native
 * library (the pom sees to it), whatever the machine has.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class VerbsWithoutLibdisniIT extends FelixSupport {

    @Inject
    SmbDirectTransport transport;

    @Configuration
    public Option[] config() {
        return felixOptions(reactorBundle("smbdirect.rdma.verbs"), systemPackage("sun.nio.ch"));
    }

    @Test
    public void verbsRegistersNoProviderAndSaysWhyWhileTheMockServes() throws Exception {
        String text = verbsStatus();
        // the pom gives this JVM a java.library.path without native libraries, so that this runs everywhere
        assertFalse("libdisni loaded from java.library.path " + System.getProperty("java.library.path") + ": " + text,
                text.equals("available"));
        assertTrue(text, text.startsWith("unavailable: "));
        // auto: rdma-core needs JDK 22+ and an RDMA device, DiSNI libdisni; the status names what was tried
        assertTrue(text, text.contains("libdisni") || text.contains("rdma-core: "));
        assertEquals("no verbs RdmaProvider", 0,
                context.getServiceReferences(RdmaProvider.class, "(smbdirect.provider=verbs)").size());
        for (ProviderDTO p : transport.getTransportDTO().providers) {
            assertTrue("only the mock is known: " + p.name, !"verbs".equals(p.name));
        }

        MockProvider mock = mockProvider("mock");
        await("the mock is selected", () -> "mock".equals(selectedProvider(transport)));
        BlockingQueue<VerifiedTraffic.Receiver> accepted = new LinkedBlockingQueue<>();
        SmbDirectListener listener = transport.listen(new InetSocketAddress("0.0.0.0", 4480), c -> {
            VerifiedTraffic.Receiver r = new VerifiedTraffic.Receiver();
            accepted.add(r);
            return r;
        });
        try {
            SmbDirectConnection c = transport.connect(new InetSocketAddress(mock.address(), 4480),
                    Duration.ofSeconds(10), new VerifiedTraffic.Receiver()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            VerifiedTraffic.Receiver server = accepted.poll(10, TimeUnit.SECONDS);
            assertNotNull(server);
            for (long seq = 0; seq < 5; seq++) {
                c.send(VerifiedTraffic.message(seq)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            server.awaitReceived(5, "5 messages over the mock");
            assertEquals(List.of(), server.problems);
            c.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } finally {
            listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
