package smbdirect.itest;

import static org.junit.Assert.assertEquals;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import javax.inject.Inject;

import org.ops4j.pax.exam.Option;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.rdma.mock.MockProvider;

/** The Felix runtime of the in-framework tests: SCR, Config Admin, Metatype and our bundles. */
public abstract class FelixSupport {

    protected static final long TIMEOUT_MILLIS = 10_000;

    /** The configuration PID of the software iWARP provider. */
    protected static final String IWARP_PID = "smbdirect.rdma.iwarp";

    @Inject
    protected BundleContext context;

    @Inject
    protected ConfigurationAdmin configAdmin;

    protected static Option[] felixOptions(Option... more) {
        Option[] base = options(
                mavenBundle("org.osgi", "org.osgi.util.function").versionAsInProject(),
                mavenBundle("org.osgi", "org.osgi.util.promise").versionAsInProject(),
                mavenBundle("org.osgi", "org.osgi.service.component").versionAsInProject(),
                mavenBundle("org.apache.felix", "org.apache.felix.scr").versionAsInProject(),
                mavenBundle("org.apache.felix", "org.apache.felix.configadmin").versionAsInProject(),
                mavenBundle("org.apache.felix", "org.apache.felix.log").versionAsInProject(),
                mavenBundle("org.apache.felix", "org.apache.felix.metatype").versionAsInProject(),
                reactorBundle("smbdirect.api"),
                reactorBundle("smbdirect.impl"),
                // the operations surfaces (JMX, health; the shell and the status page wait for Gogo and the Web Console)
                reactorBundle("smbdirect.perf"),
                reactorBundle("smbdirect.ops"),
                reactorBundle("smbdirect.rdma.mock"),
                reactorBundle("smbdirect.testkit"),
                junitBundles(),
                systemProperty("org.ops4j.pax.logging.DefaultServiceLog.level").value("WARN"),
                cleanCaches(true));
        Option[] all = new Option[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    /** The jar this reactor built for {@code bsn} (never a copy from the local repository). */
    protected static Option reactorBundle(String bsn) {
        String path = System.getProperty("bundle." + bsn);
        if (path == null || !new File(path).isFile()) {
            throw new IllegalStateException("system property bundle." + bsn + " does not name a built jar: " + path);
        }
        return bundle(new File(path).toURI().toString());
    }

    /** Waits until {@code condition} holds, failing with {@code what} after the timeout. */
    protected static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }

    /** Like {@link #await(String, BooleanSupplier)}, returning the first non-null value. */
    protected static <T> T awaitValue(String what, Supplier<T> value) throws InterruptedException {
        Object[] holder = new Object[1];
        await(what, () -> (holder[0] = value.get()) != null);
        @SuppressWarnings("unchecked")
        T t = (T) holder[0];
        return t;
    }

    /** The installed bundle {@code bsn}. */
    protected Bundle installedBundle(String bsn) {
        return Arrays.stream(context.getBundles()).filter(b -> bsn.equals(b.getSymbolicName())).findFirst()
                .orElseThrow(() -> new AssertionError("bundle " + bsn + " not installed"));
    }

    /**
     * The verbs bundle and the status it registers in every case ({@code smbdirect.provider=verbs},
     * {@code smbdirect.provider.status}: "available" or "unavailable: <why>"): the bundle must be
     * active, and the status is awaited.
     */
    protected String verbsStatus() throws InterruptedException {
        assertEquals(Bundle.ACTIVE, installedBundle("smbdirect.rdma.verbs").getState());
        ServiceReference<?> status = awaitValue("the verbs status service", () -> {
            try {
                ServiceReference<?>[] refs = context.getServiceReferences((String) null,
                        "(&(smbdirect.provider=verbs)(smbdirect.provider.status=*))");
                return refs == null ? null : refs[0];
            } catch (InvalidSyntaxException e) {
                throw new IllegalArgumentException(e);
            }
        });
        return String.valueOf(status.getProperty("smbdirect.provider.status"));
    }

    /** Updates (or creates) the configuration of {@code pid}, unbound to any bundle location (P6). */
    protected Configuration configure(String pid, Object... keyValues) throws IOException {
        Configuration c = configAdmin.getConfiguration(pid, "?");
        c.update(dictionary(keyValues));
        return c;
    }

    /**
     * Configures the software iWARP provider to listen on any address at {@code port} only, ranked
     * 50, with the further {@code more} key/value pairs.
     */
    protected Configuration configureIwarp(int port, Object... more) throws IOException {
        Object[] kv = new Object[4 + more.length];
        kv[0] = "listenAddresses";
        kv[1] = new String[] {"*:" + port};
        kv[2] = "service.ranking";
        kv[3] = 50;
        System.arraycopy(more, 0, kv, 4, more.length);
        return configure(IWARP_PID, kv);
    }

    /** A TCP port on the loopback address that was free a moment ago. */
    protected static int freeLoopbackPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Adds a mock RDMA provider (its own fabric) through the mock's factory configuration. */
    protected Configuration addMockProvider(String name, int ranking) throws IOException {
        Configuration c = configAdmin.getFactoryConfiguration("smbdirect.rdma.mock", name, "?");
        c.update(dictionary("smbdirect.provider", name, "service.ranking", ranking));
        return c;
    }

    /** The mock provider registered under {@code name}, once it is there. */
    protected MockProvider mockProvider(String name) throws InterruptedException {
        return awaitValue("RDMA provider " + name, () -> {
            try {
                for (ServiceReference<RdmaProvider> r : context.getServiceReferences(RdmaProvider.class,
                        "(" + RdmaProvider.PROVIDER_NAME + "=" + name + ")")) {
                    RdmaProvider p = context.getService(r);
                    if (p instanceof MockProvider m) {
                        return m;
                    }
                }
                return null;
            } catch (InvalidSyntaxException e) {
                throw new IllegalArgumentException(e);
            }
        });
    }

    /** The name of the provider the transport selects for new work, or null. */
    protected static String selectedProvider(SmbDirectTransport transport) {
        for (ProviderDTO p : transport.getTransportDTO().providers) {
            if (p.selected) {
                return p.name;
            }
        }
        return null;
    }

    /** The provider named {@code name} as the transport reports it, or null when there is none. */
    protected static ProviderDTO providerDTO(SmbDirectTransport transport, String name) {
        for (ProviderDTO p : transport.getTransportDTO().providers) {
            if (name.equals(p.name)) {
                return p;
            }
        }
        return null;
    }

    /** Whether the transport reports a listener open on {@code provider}. */
    protected static boolean listenerOpenOn(SmbDirectTransport transport, String provider) {
        for (ListenerDTO l : transport.getTransportDTO().listeners) {
            if (provider.equals(l.provider) && "OPEN".equals(l.state)) {
                return true;
            }
        }
        return false;
    }

    protected static ListenerDTO listenerDTO(SmbDirectTransport transport, String name) {
        for (ListenerDTO l : transport.getTransportDTO().listeners) {
            if (name.equals(l.name)) {
                return l;
            }
        }
        return null;
    }

    protected static Dictionary<String, Object> dictionary(Object... keyValues) {
        Dictionary<String, Object> d = new Hashtable<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            d.put((String) keyValues[i], keyValues[i + 1]);
        }
        return d;
    }
}
