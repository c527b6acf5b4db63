package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
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

import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ListenerDTO;

/**
 * Karaf 4.4 with the feature {@code smbdirect-fileserver} beside {@code smbdirect-mock}, the file
 * server configured as an operator does, by {@code etc/smbdirect.example.fileserver.cfg}: the
 * feature's bundles (the server and Bouncy Castle) are active and the server listens on the mock
 * provider.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class KarafFileServerIT {

    private static final String ADDRESS_PORT = ":5445";

    @Inject
    BundleContext context;

    @Inject
    SmbDirectTransport transport;

    @Configuration
    public Option[] config() throws IOException {
        // the served directory: made by the test under target/, where the forked Karaf runs too
        File share = Files.createDirectories(new File("target/karaf-fileserver-share").toPath()).toFile();
        String cfg = "etc/smbdirect.example.fileserver.cfg";
        return KarafSupport.karaf(List.of("smbdirect-mock", "smbdirect-fileserver"),
                editConfigurationFilePut(cfg, "directory", share.getAbsolutePath()),
                editConfigurationFilePut(cfg, "listenAddress", "0.0.0.0" + ADDRESS_PORT),
                editConfigurationFilePut(cfg, "provider", "mock"),
                editConfigurationFilePut(cfg, "guest", "true"));
    }

    private ListenerDTO fileServerListener() {
        ListenerDTO[] all = transport.getTransportDTO().listeners;
        return all == null ? null : Arrays.stream(all).filter(l -> l.address != null && l.address.endsWith(ADDRESS_PORT))
                .findFirst().orElse(null);
    }

    @Test
    public void theFeatureInstallsTheServerWhichListensOnceConfigured() throws Exception {
        for (String bsn : List.of("smbdirect.api", "smbdirect.impl", "smbdirect.example.fileserver", "bcprov")) {
            Bundle b = Arrays.stream(context.getBundles()).filter(x -> bsn.equals(x.getSymbolicName())).findFirst()
                    .orElseThrow(() -> new AssertionError(bsn + " not installed by smbdirect-fileserver"));
            assertEquals(bsn + " active", Bundle.ACTIVE, b.getState());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (fileServerListener() == null || !"OPEN".equals(fileServerListener().state)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the file server never listened: " + Arrays.toString(
                        transport.getTransportDTO().listeners));
            }
            Thread.sleep(50);
        }
        assertEquals("mock", fileServerListener().provider);
    }
}
