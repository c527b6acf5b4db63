package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
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
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.testkit.VerifiedTraffic;

/**
 * A real Karaf 4.4.10 (the distribution zip from Maven) with the feature {@code smbdirect-mock} installed
 * from this build's feature repository (the bundles come from the build's .kar, placed in Karaf's
 * {@code system/} repository).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class KarafFeatureIT {

    @Inject
    BundleContext context;

    @Inject
    SmbDirectTransport transport;

    @Configuration
    public Option[] config() throws IOException {
        return KarafSupport.karaf(List.of("smbdirect-mock"));
    }

    @Test
    public void featureInstallsActiveBundlesAndTheTransportService() throws Exception {
        for (String bsn : List.of("smbdirect.api", "smbdirect.impl", "smbdirect.rdma.mock")) {
            Bundle b = Arrays.stream(context.getBundles()).filter(x -> bsn.equals(x.getSymbolicName())).findFirst()
                    .orElseThrow(() -> new AssertionError(bsn + " not installed by smbdirect-mock"));
            assertEquals(bsn + " active", Bundle.ACTIVE, b.getState());
        }
        assertNotNull(transport.getTransportDTO().settings);
        assertEquals(255, transport.getTransportDTO().settings.receiveCreditMax);
    }

    @Test
    public void connectionRunsEndToEndOverTheMockProvider() throws Exception {
        MockProvider mock = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (mock == null) {
            for (ServiceReference<RdmaProvider> r : context.getServiceReferences(RdmaProvider.class,
                    "(smbdirect.provider=mock)")) {
                if (context.getService(r) instanceof MockProvider m) {
                    mock = m;
                }
            }
            if (mock == null) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the mock provider never registered");
                }
                Thread.sleep(50);
            }
        }
        BlockingQueue<VerifiedTraffic.Receiver> accepted = new LinkedBlockingQueue<>();
        SmbDirectListener listener = transport.listen(new InetSocketAddress("0.0.0.0", 4470), c -> {
            VerifiedTraffic.Receiver r = new VerifiedTraffic.Receiver();
            accepted.add(r);
            return r;
        });
        try {
            VerifiedTraffic.Receiver clientSide = new VerifiedTraffic.Receiver();
            SmbDirectConnection client = transport.connect(new InetSocketAddress(mock.address(), 4470),
                    Duration.ofSeconds(10), clientSide).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals("mock", client.providerName());
            VerifiedTraffic.Receiver serverSide = accepted.poll(10, TimeUnit.SECONDS);
            assertNotNull("the listener accepted the connection", serverSide);
            for (long seq = 0; seq < 20; seq++) {
                client.send(VerifiedTraffic.message(seq)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            serverSide.awaitReceived(20, "20 messages, some of them fragmented");
            assertEquals(List.of(), serverSide.problems);
            client.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(CloseReason.Kind.LOCAL_CLOSE, clientSide.awaitClosed().kind());
        } finally {
            listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
