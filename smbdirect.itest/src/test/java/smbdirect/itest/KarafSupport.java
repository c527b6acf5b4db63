package smbdirect.itest;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.maven;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.CoreOptions.vmOptions;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.configureConsole;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFileExtend;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.karafDistributionConfiguration;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.logLevel;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.replaceConfigurationFile;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Properties;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.karaf.options.configs.FeaturesCfg;
import org.ops4j.pax.exam.karaf.options.LogLevelOption.LogLevel;

/** Pax Exam options of the Karaf container tests. */
final class KarafSupport {

    static final String KARAF_VERSION = "4.4.10";

    private KarafSupport() {
    }

    /**
     * Karaf 4.4.10 from the distribution zip, free ports for ssh and JMX, the build's feature
     * repository with {@code features} installed, the kar's bundles in {@code system/}, and
     * {@code extra} options.
     */
    static Option[] karaf(List<String> features, Option... extra) throws IOException {
        String version = System.getProperty("project.version", "1.0.0");
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
                editConfigurationFileExtend(FeaturesCfg.REPOSITORIES, maven().groupId("smbdirect")
                        .artifactId("smbdirect.features").version(version).classifier("features").type("xml").getURL()),
                editConfigurationFilePut(FeaturesCfg.BOOT, bootStage(features)),
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
        // strict mode (smbdirect.testsupport.Judges) reaches the forked Karaf JVM as it reaches this one
        o.add(systemProperty("smbdirect.strict").value(System.getProperty("smbdirect.strict", "false")));
        o.addAll(systemRepositoryFromKar(new File(required("smbdirect.kar"))));
        // the test kit's verified traffic, used by the tests (a test-scope bundle, not in the features)
        o.add(bundle(new File(required("bundle.smbdirect.testkit")).toURI().toString()));
        o.addAll(List.of(extra));
        return options(o.toArray(Option[]::new));
    }

    /**
     * Karaf's own boot features and {@code features} as the first stage of {@code featuresBoot}:
     * Pax Exam appends its own {@code exam} feature, which Karaf then installs in a later stage, so
     * that the test probe, which Pax Exam installs as soon as that feature's remote bundle context
     * answers, never meets the installation of our features ("Resolver hook service unregistered
     * during resolve", when the two overlapped on a loaded machine).
     */
    private static String bootStage(List<String> features) throws IOException {
        try (ZipFile zip = new ZipFile(required("karaf.zip"))) {
            ZipEntry cfg = zip.stream().filter(e -> e.getName().endsWith("/etc/org.apache.karaf.features.cfg"))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no etc/org.apache.karaf.features.cfg in "
                            + zip.getName()));
            Properties p = new Properties();
            try (InputStream in = zip.getInputStream(cfg)) {
                p.load(in);
            }
            String karafs = p.getProperty(FeaturesCfg.BOOT.getKey(), "").strip();
            if (karafs.isEmpty() || karafs.contains("(")) {
                throw new IllegalStateException("Karaf's featuresBoot is not a plain list: '" + karafs + "'");
            }
            return "(" + karafs + ", " + String.join(", ", features) + ")";
        }
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

    static String freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return Integer.toString(s.getLocalPort());
        }
    }
}
