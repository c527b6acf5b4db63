package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.replaceConfigurationFile;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.inject.Inject;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.karaf.shell.api.console.Session;
import org.apache.karaf.shell.api.console.SessionFactory;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.testkit.VerifiedTraffic;

/**
 * The operations features in a real Karaf 4.4.10: {@code smbdirect-mock} and {@code smbdirect-ops}
 * installed from this build's feature repository; the {@code smbd} commands run in Karaf's own shell
 * and the status page is served by Karaf's Web Console (user karaf/karaf, enabled in
 * {@code etc/users.properties}, which Karaf ships commented out).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class KarafOperationsIT {

    private static final int PORT = 4471;
    /** Tells the test, which runs inside Karaf, the HTTP port chosen when the container was configured. */
    private static final String HTTP_PORT_PROPERTY = "smbdirect.itest.http.port";

    @Inject
    BundleContext context;

    @Inject
    SmbDirectTransport transport;

    @Inject
    SessionFactory sessions;

    @Configuration
    public Option[] config() throws IOException {
        Path users = Files.createTempFile(new File("target").toPath().toAbsolutePath(), "users", ".properties");
        Files.writeString(users, """
                karaf = karaf,_g_:admingroup
                _g_\\:admingroup = group,admin,manager,viewer,systembundles,ssh
                """);
        String httpPort = KarafSupport.freePort();
        return KarafSupport.karaf(List.of("smbdirect-mock", "smbdirect-ops"),
                editConfigurationFilePut("etc/system.properties", HTTP_PORT_PROPERTY, httpPort),
                replaceConfigurationFile("etc/users.properties", users.toFile()),
                editConfigurationFilePut("etc/org.ops4j.pax.web.cfg", "org.osgi.service.http.enabled", "true"),
                editConfigurationFilePut("etc/org.ops4j.pax.web.cfg", "org.osgi.service.http.port", httpPort));
    }

    /** A client connection and the connection the listener accepted for it, over the mock provider. */
    private record Live(SmbDirectListener listener, SmbDirectConnection client, VerifiedTraffic.Receiver clientSide,
            SmbDirectConnection server, VerifiedTraffic.Receiver serverSide) {
    }

    private Live open() throws Exception {
        MockProvider mock = awaitMock();
        BlockingQueue<SmbDirectConnection> accepted = new LinkedBlockingQueue<>();
        VerifiedTraffic.Receiver serverSide = new VerifiedTraffic.Receiver();
        SmbDirectListener listener = transport.listen(new InetSocketAddress("0.0.0.0", PORT), c -> {
            accepted.add(c);
            return serverSide;
        });
        VerifiedTraffic.Receiver clientSide = new VerifiedTraffic.Receiver();
        SmbDirectConnection client = transport.connect(new InetSocketAddress(mock.address(), PORT),
                Duration.ofSeconds(10), clientSide).toCompletableFuture().get(10, TimeUnit.SECONDS);
        SmbDirectConnection server = accepted.poll(10, TimeUnit.SECONDS);
        assertNotNull("the listener accepted the connection", server);
        return new Live(listener, client, clientSide, server, serverSide);
    }

    private void close(Live live) throws Exception {
        live.client().close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        live.listener().close().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private MockProvider awaitMock() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (;;) {
            for (ServiceReference<RdmaProvider> r : context.getServiceReferences(RdmaProvider.class,
                    "(smbdirect.provider=mock)")) {
                if (context.getService(r) instanceof MockProvider m) {
                    return m;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the mock provider never registered");
            }
            Thread.sleep(50);
        }
    }

    /** Runs {@code command} in a Karaf shell session; returns its result and anything it printed. */
    private String shell(String command) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
                Session session = sessions.create(new ByteArrayInputStream(new byte[0]), out, out)) {
            Object result = session.execute(command);
            out.flush();
            return printed.toString(StandardCharsets.UTF_8) + (result == null ? "" : String.valueOf(result));
        }
    }

    /**
     * Runs {@code commands} one after the other in one Karaf shell session of a user with the roles
     * of Karaf's admingroup (Karaf's command ACLs keep config:* to managers); returns what they printed.
     */
    private String shellSession(String... commands) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        javax.security.auth.Subject admin = new javax.security.auth.Subject();
        admin.getPrincipals().add(new org.apache.karaf.jaas.boot.principal.UserPrincipal("karaf"));
        for (String role : List.of("admin", "manager", "viewer")) { // Karaf's admingroup
            admin.getPrincipals().add(new org.apache.karaf.jaas.boot.principal.RolePrincipal(role));
        }
        try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
                Session session = sessions.create(new ByteArrayInputStream(new byte[0]), out, out)) {
            javax.security.auth.Subject.doAs(admin, (java.security.PrivilegedExceptionAction<Void>) () -> {
                for (String command : commands) {
                    session.execute(command);
                }
                return null;
            });
            out.flush();
            return printed.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    public void configUpdateAndPropertySetWithAPidOfARefusedSettingSayItInKarafsShell() throws Exception {
        shellWhenReady("smbd:settings");
        String good = shellSession("config:edit smbdirect.transport", "config:property-set receiveCreditMax 100",
                "config:update");
        assertEquals("a good change says nothing", "", good);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (transport.getTransportDTO().settings.receiveCreditMax != 100) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("receiveCreditMax 100 never in force");
            }
            Thread.sleep(50);
        }
        String refused = shellSession("config:edit smbdirect.transport", "config:property-set receiveCreditMax 0",
                "config:update");
        assertTrue(refused, refused.startsWith("Configuration smbdirect.transport: receiveCreditMax = 0 refused"
                + " (less than minimum); the last good settings are put back (kept in "));
        assertEquals(100, transport.getTransportDTO().settings.receiveCreditMax);
        // property-set with a PID saves at once, without config:update: said there
        String direct = shellSession("config:property-set -p smbdirect.transport receiveCreditMax 0");
        assertTrue(direct, direct.startsWith("Configuration smbdirect.transport: receiveCreditMax = 0 refused"
                + " (less than minimum); the last good settings are put back (kept in "));
        // said once done: Config Admin holds the last good settings again when the line is printed
        ServiceReference<ConfigurationAdmin> cm = context.getServiceReference(ConfigurationAdmin.class);
        assertEquals("100", String.valueOf(context.getService(cm).getConfiguration("smbdirect.transport", null)
                .getProperties().get("receiveCreditMax")));
        assertEquals("a good one says nothing", "", shellSession("config:property-set -p smbdirect.transport "
                + "receiveCreditMax 110"));
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (transport.getTransportDTO().settings.receiveCreditMax != 110) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("receiveCreditMax 110 never in force");
            }
            Thread.sleep(50);
        }
    }

    /** Waits until the smbd commands are registered with Karaf's shell (they come with the bundle). */
    private String shellWhenReady(String command) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (;;) {
            try {
                return shell(command);
            } catch (Exception e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(command + " never ran in Karaf's shell", e);
                }
                Thread.sleep(100);
            }
        }
    }

    @Test
    public void smbdCommandsRunInKarafsShellAndCloseAnyConnection() throws Exception {
        Live live = open();
        try {
            String providers = shellWhenReady("smbd:providers");
            assertTrue(providers, providers.contains("mock"));

            String connections = shell("smbd:connections");
            for (SmbDirectConnection c : List.of(live.client(), live.server())) {
                assertTrue(connections, Pattern.compile("(?m)^\\s*" + c.id() + "\\s+\\S+\\s+ESTABLISHED\\s")
                        .matcher(connections).find());
            }
            String one = shell("smbd:connection " + live.server().id());
            assertTrue(one, one.contains("ESTABLISHED") && one.contains("mock"));

            // a connection owned by its upper layer (here: the test's listener), not opened by smbd:connect
            String closed = shell("smbd:close " + live.server().id());
            assertEquals("connection " + live.server().id() + " closed\n", closed);
            CloseReason reason = live.serverSide().awaitClosed();
            assertEquals(CloseReason.Kind.LOCAL_CLOSE, reason.kind());
            assertEquals("closed by operator (smbd:close)", reason.detail());
            assertNotNull("the peer sees the connection end", live.clientSide().awaitClosed());
        } finally {
            close(live);
        }
    }

    @Test
    public void statusPageInKarafsWebConsoleListsAndClosesTheConnection() throws Exception {
        Live live = open();
        try {
            String page = getWhenReady("/system/console/smbdirect");
            assertTrue(page, page.contains("id='smbd-connections'"));
            assertTrue(page, page.contains("/system/console/smbdirect/res/status.js"));
            // the page draws itself from the JSON of the same DTOs; its script and Chart.js are served as they are
            String json = get("/system/console/smbdirect.json");
            for (SmbDirectConnection c : List.of(live.client(), live.server())) {
                assertTrue(json, json.contains("{\"id\":" + c.id() + ",\"role\":"));
            }
            assertTrue(json, json.contains("\"name\":\"mock\""));
            assertTrue(json, json.contains("\"history\":{\"providers\":{\"mock\":{\"timeMillis\":["));
            assertTrue(get("/system/console/smbdirect/res/chart.umd.js").startsWith("/*!\n * Chart.js v4.4.1"));
            assertTrue(get("/system/console/smbdirect/res/status.js").contains("smbdirect.json"));

            // the page's Close button ends any live connection, here the accepted one
            Matcher token = Pattern.compile("name='token' value='([0-9a-f]+)'").matcher(page);
            assertTrue("the page carries its form token", token.find());
            int status = post("/system/console/smbdirect", "token=" + token.group(1) + "&action=close&id="
                    + live.server().id() + "&provider=mock");
            assertTrue("POST answered " + status, status == 200 || status == 302 || status == 303);
            CloseReason reason = live.serverSide().awaitClosed();
            assertEquals(CloseReason.Kind.LOCAL_CLOSE, reason.kind());
            assertEquals("closed by operator (Web Console)", reason.detail());
        } finally {
            close(live);
        }
    }

    @Test
    public void mbeansAreInKarafsMBeanServer() throws Exception {
        Live live = open();
        try {
            ServiceReference<MBeanServer> ref = context.getServiceReference(MBeanServer.class);
            MBeanServer server = ref != null ? context.getService(ref) : ManagementFactory.getPlatformMBeanServer();
            ObjectName client = new ObjectName("smbdirect:type=Connection,provider=mock,id=" + live.client().id());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // the MBeans follow the monitor's snapshots (one a second): a snapshot taken while the
            // connection negotiated shows it NEGOTIATING until the next one
            while (!server.isRegistered(client) || !"ESTABLISHED".equals(server.getAttribute(client, "state"))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(client + " never registered as ESTABLISHED; smbdirect MBeans: "
                            + server.queryNames(new ObjectName("smbdirect:*"), null)
                            + (server.isRegistered(client) ? ", its state " + server.getAttribute(client, "state") : ""));
                }
                Thread.sleep(100);
            }
            assertEquals("mock", server.getAttribute(new ObjectName("smbdirect:type=Transport"), "selectedProvider"));
            assertTrue(server.isRegistered(new ObjectName("smbdirect:type=Provider,name=mock")));
        } finally {
            close(live);
        }
    }

    private static String basicKaraf() {
        return "Basic " + Base64.getEncoder().encodeToString("karaf:karaf".getBytes(StandardCharsets.UTF_8));
    }

    /** POSTs a form to {@code path} as karaf/karaf; returns the status (redirects not followed). */
    private static int post(String path, String form) throws IOException {
        HttpURLConnection http = (HttpURLConnection) new URL("http://127.0.0.1:" + System.getProperty(HTTP_PORT_PROPERTY)
                + path).openConnection();
        http.setInstanceFollowRedirects(false);
        http.setConnectTimeout(5000);
        http.setReadTimeout(60000);
        http.setRequestMethod("POST");
        http.setDoOutput(true);
        http.setRequestProperty("Authorization", basicKaraf());
        http.setRequestProperty("Content-Type", "application/x-www-form-urlencoded");
        try (var out = http.getOutputStream()) {
            out.write(form.getBytes(StandardCharsets.UTF_8));
        }
        return http.getResponseCode();
    }

    /** GETs {@code path} as karaf/karaf (must answer 200). */
    private static String get(String path) throws IOException {
        HttpURLConnection http = (HttpURLConnection) new URL("http://127.0.0.1:" + System.getProperty(HTTP_PORT_PROPERTY)
                + path).openConnection();
        http.setConnectTimeout(5000);
        http.setReadTimeout(30000);
        http.setRequestProperty("Authorization", basicKaraf());
        assertEquals("GET " + path, 200, http.getResponseCode());
        try (InputStream in = http.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** GETs {@code path} as karaf/karaf until Karaf's HTTP service and Web Console serve it. */
    private String getWhenReady(String path) throws Exception {
        String port = System.getProperty(HTTP_PORT_PROPERTY);
        assertNotNull(HTTP_PORT_PROPERTY + " is set in etc/system.properties", port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String last = "nothing";
        for (;;) {
            try {
                HttpURLConnection http = (HttpURLConnection) new URL("http://127.0.0.1:" + port + path)
                        .openConnection();
                http.setConnectTimeout(5000);
                http.setReadTimeout(30000);
                http.setRequestProperty("Authorization", basicKaraf());
                int status = http.getResponseCode();
                if (status == 200) {
                    try (InputStream in = http.getInputStream()) {
                        String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                        if (body.contains("smbd-connections")) {
                            return body;
                        }
                        last = "200 without the SMB Direct page";
                    }
                } else {
                    last = "HTTP " + status;
                }
            } catch (IOException e) {
                last = e.toString();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("GET " + path + " on port " + port + " never served the page: " + last);
            }
            Thread.sleep(200);
        }
    }
}
