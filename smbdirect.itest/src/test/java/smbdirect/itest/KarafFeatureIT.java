package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.ops4j.pax.exam.CoreOptions.maven;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.vmOptions;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.configureConsole;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.features;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.karafDistributionConfiguration;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.logLevel;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.replaceConfigurationFile;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.karaf.options.LogLevelOption.LogLevel;
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

/**
 * A real Karaf 4.4.10 (the distribution zip from Maven) with the feature {@code smbdirect-mock} installed
 * from this build's feature repository (the bundles come from the build's .kar, placed in Karaf's
 * {@code system/} repository).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class KarafFeatureIT {

    private static final String KARAF_VERSION = "4.4.10";

    @Inject
    BundleContext context;

    @Inject
    SmbDirectTransport transport;

    @Configuration
    public Option[] config() throws IOException {
        String version = System.getProperty("project.version", "0.1.0-SNAPSHOT");
        List<Option> o = new ArrayList<>(List.of(
                karafDistributionConfiguration()
                        .frameworkUrl(new File(required("karaf.zip")).toURI().toString())
                        .karafVersion(KARAF_VERSION)
                        .name("Apache Karaf")
                        .unpackDirectory(new File("target/exam"))
                        .useDeployFolder(false),
                configureConsole().ignoreLocalConsole().ignoreRemoteShell(),
                logLevel(LogLevel.WARN),
                editConfigurationFilePut("etc/org.apache.karaf.shell.cfg", "sshPort", freePort()),
                editConfigurationFilePut("etc/org.apache.karaf.management.cfg", "rmiRegistryPort", freePort()),
                editConfigurationFilePut("etc/org.apache.karaf.management.cfg", "rmiServerPort", freePort()),
                editConfigurationFilePut("etc/org.ops4j.pax.url.mvn.cfg", "org.ops4j.pax.url.mvn.localRepository",
                        System.getProperty("org.ops4j.pax.url.mvn.localRepository",
                                System.getProperty("user.home") + "/.m2/repository")),
                features(maven().groupId("smbdirect").artifactId("smbdirect.features").version(version)
                        .classifier("features").type("xml"), "smbdirect-mock"),
                vmOptions(
                        "--add-reads=java.xml=java.logging",
                        "--add-exports=java.base/org.apache.karaf.specs.locator=java.xml,ALL-UNNAMED",
                        "--patch-module", "java.base=lib/endorsed/org.apache.karaf.specs.locator-" + KARAF_VERSION + ".jar",
                        "--patch-module", "java.xml=lib/endorsed/org.apache.karaf.specs.java.xml-" + KARAF_VERSION + ".jar",
                        "--add-opens", "java.base/java.security=ALL-UNNAMED",
                        "--add-opens", "java.base/java.net=ALL-UNNAMED",
                        "--add-opens", "java.base/java.lang=ALL-UNNAMED",
                        "--add-opens", "java.base/java.util=ALL-UNNAMED",
                        "--add-opens", "java.naming/javax.naming.spi=ALL-UNNAMED",
                        "--add-opens", "java.rmi/sun.rmi.transport.tcp=ALL-UNNAMED",
                        "--add-exports=java.base/sun.net.www.protocol.file=ALL-UNNAMED",
                        "--add-exports=java.base/sun.net.www.protocol.ftp=ALL-UNNAMED",
                        "--add-exports=java.base/sun.net.www.protocol.http=ALL-UNNAMED",
                        "--add-exports=java.base/sun.net.www.protocol.https=ALL-UNNAMED",
                        "--add-exports=java.base/sun.net.www.protocol.jar=ALL-UNNAMED",
                        "--add-exports=java.base/sun.net.www.content.text=ALL-UNNAMED",
                        "--add-exports=jdk.xml.dom/org.w3c.dom.html=ALL-UNNAMED",
                        "--add-exports=jdk.naming.rmi/com.sun.jndi.url.rmi=ALL-UNNAMED",
                        "-classpath", "lib/jdk9plus/*" + File.pathSeparator + "lib/boot/*")));
        o.addAll(systemRepositoryFromKar(new File(required("smbdirect.kar"))));
        return options(o.toArray(Option[]::new));
    }

    /** The kar's {@code repository/} entries as files of Karaf's {@code system/} Maven repository. */
    private static List<Option> systemRepositoryFromKar(File kar) throws IOException {
        Path out = Files.createTempDirectory(new File("target").toPath().toAbsolutePath(), "kar");
        List<Option> files = new ArrayList<>();
        try (ZipFile zip = new ZipFile(kar)) {
            Enumeration<? extends ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements()) {
                ZipEntry e = entries.nextElement();
                if (e.isDirectory() || !e.getName().startsWith("repository/")) {
                    continue;
                }
                String relative = e.getName().substring("repository/".length());
                Path target = out.resolve(relative);
                Files.createDirectories(target.getParent());
                try (InputStream in = zip.getInputStream(e)) {
                    Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                }
                files.add(replaceConfigurationFile("system/" + relative, target.toFile()));
            }
        }
        if (files.isEmpty()) {
            throw new IllegalStateException(kar + " holds no repository/ entries");
        }
        return files;
    }

    private static String required(String property) {
        String v = System.getProperty(property);
        if (v == null || !new File(v).isFile()) {
            throw new IllegalStateException("system property " + property + " does not name a file: " + v);
        }
        return v;
    }

    private static String freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return Integer.toString(s.getLocalPort());
        }
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
        BlockingQueue<Traffic.Receiver> accepted = new LinkedBlockingQueue<>();
        SmbDirectListener listener = transport.listen(new InetSocketAddress("0.0.0.0", 4470), c -> {
            Traffic.Receiver r = new Traffic.Receiver();
            accepted.add(r);
            return r;
        });
        try {
            Traffic.Receiver clientSide = new Traffic.Receiver();
            SmbDirectConnection client = transport.connect(new InetSocketAddress(mock.address(), 4470),
                    Duration.ofSeconds(10), clientSide).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals("mock", client.providerName());
            Traffic.Receiver serverSide = accepted.poll(10, TimeUnit.SECONDS);
            assertNotNull("the listener accepted the connection", serverSide);
            for (long seq = 0; seq < 20; seq++) {
                client.send(Traffic.message(seq)).toCompletableFuture().get(10, TimeUnit.SECONDS);
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
