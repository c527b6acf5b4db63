package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

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

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.testkit.VerifiedTraffic;

/**
 * Karaf 4.4 with the feature {@code smbdirect-iwarp} and the provider configured as an operator
 * does, by {@code etc/smbdirect.rdma.iwarp.cfg}: the provider registers and an SMB Direct session
 * runs over it on loopback TCP (an ephemeral port).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class KarafIwarpIT {

    @Inject
    BundleContext context;

    @Inject
    SmbDirectTransport transport;

    @Configuration
    public Option[] config() throws IOException {
        // smbdirect-mock beside it only because the test kit bundle (VerifiedTraffic) wires to the mock's
        // package; the iwarp provider (ranking 50) is still the one selected over the mock (-100)
        return KarafSupport.karaf(List.of("smbdirect-iwarp", "smbdirect-mock"),
                // 127.0.0.1, any port: the listener below takes an ephemeral one (no fixed port in a shared build)
                editConfigurationFilePut("etc/smbdirect.rdma.iwarp.cfg", "listenAddresses", "127.0.0.1"),
                editConfigurationFilePut("etc/smbdirect.rdma.iwarp.cfg", "maxFpduSize", "4096"));
    }

    private ProviderDTO iwarp() {
        return Arrays.stream(transport.getTransportDTO().providers).filter(p -> "iwarp".equals(p.name)).findFirst()
                .orElse(null);
    }

    @Test
    public void theFeatureInstallsTheProviderWhichRunsASessionOnceConfigured() throws Exception {
        for (String bsn : List.of("smbdirect.api", "smbdirect.impl", "smbdirect.rdma.iwarp")) {
            Bundle b = Arrays.stream(context.getBundles()).filter(x -> bsn.equals(x.getSymbolicName())).findFirst()
                    .orElseThrow(() -> new AssertionError(bsn + " not installed by smbdirect-iwarp"));
            assertEquals(bsn + " active", Bundle.ACTIVE, b.getState());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (iwarp() == null || !iwarp().selected) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the iwarp provider never registered: " + transport.getTransportDTO().providers);
            }
            Thread.sleep(50);
        }
        ProviderDTO dto = iwarp();
        assertEquals("IWARP", dto.transportType);
        assertTrue(dto.settings, dto.settings.contains("FPDUs up to 4 KiB"));

        BlockingQueue<VerifiedTraffic.Receiver> accepted = new LinkedBlockingQueue<>();
        SmbDirectListener listener = transport.listen(new InetSocketAddress("127.0.0.1", 0), c -> {
            VerifiedTraffic.Receiver r = new VerifiedTraffic.Receiver();
            accepted.add(r);
            return r;
        });
        try {
            assertEquals("iwarp", listener.providerName());
            VerifiedTraffic.Receiver clientSide = new VerifiedTraffic.Receiver();
            SmbDirectConnection client = transport.connect(listener.localAddress(),
                    Duration.ofSeconds(10), clientSide).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals("iwarp", client.providerName());
            VerifiedTraffic.Receiver serverSide = accepted.poll(10, TimeUnit.SECONDS);
            assertNotNull("the listener accepted the connection", serverSide);
            for (long seq = 0; seq < 20; seq++) {
                client.send(VerifiedTraffic.message(seq)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            serverSide.awaitReceived(20, "20 messages over iWARP, some of them fragmented");
            assertEquals(List.of(), serverSide.problems);
            client.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(CloseReason.Kind.LOCAL_CLOSE, clientSide.awaitClosed().kind());
        } finally {
            listener.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
