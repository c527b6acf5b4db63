package smbdirect.ops.console;

import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.Version;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import smbdirect.api.SmbDirectTransport;
import smbdirect.impl.control.ConnectionControl;
import smbdirect.ops.monitor.TransportMonitor;
import smbdirect.impl.control.SettingsFindings;
import smbdirect.ops.shell.TestConnections;

/**
 * Registers the {@link StatusPage} as the Web Console plugin of the servlet API the framework's
 * console takes: as a Jakarta Servlet ({@link JakartaStatusPlugin}) where this bundle is wired to
 * {@code jakarta.servlet} (the Felix Web Console 5), and as a javax servlet ({@link StatusPlugin})
 * where it is wired to {@code javax.servlet} and no Jakarta Felix Web Console is installed
 * (Karaf's Web Console), so neither console sees a plugin it has to adapt or warn about. Both
 * imports are optional: without either, nothing is registered. Decided at activation.
 *
 * <p>Thread-safe: SCR serialises activation and deactivation.
 */
@Component(immediate = true, service = {})
public final class StatusPlugins {

    /** The Felix Web Console; from version 5 on, a Jakarta Servlet application. */
    static final String FELIX_WEBCONSOLE = "org.apache.felix.webconsole";
    static final Version JAKARTA_WEBCONSOLE = new Version(5, 0, 0);

    @Reference
    private SmbDirectTransport transport;

    @Reference
    private TestConnections testConnections;

    @Reference
    private TransportMonitor monitor;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile ConnectionControl connectionControl;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile SettingsFindings settings;

    private final List<ServiceRegistration<?>> registrations = new ArrayList<>();

    @Activate
    void activate(BundleContext context) {
        StatusPage page = new StatusPage(transport, testConnections, monitor, () -> connectionControl,
                () -> settings);
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put("felix.webconsole.label", StatusPage.LABEL);
        properties.put("felix.webconsole.title", "SMB Direct");
        properties.put("felix.webconsole.category", "Status");
        if (loadable("jakarta.servlet.http.HttpServlet")) {
            registrations.add(context.registerService("jakarta.servlet.Servlet", new JakartaStatusPlugin(page),
                    properties));
        }
        if (loadable("javax.servlet.http.HttpServlet") && !jakartaWebConsoleInstalled(context)) {
            registrations.add(context.registerService("javax.servlet.Servlet", new StatusPlugin(page), properties));
        }
    }

    @Deactivate
    void deactivate() {
        for (ServiceRegistration<?> r : registrations) {
            try {
                r.unregister();
            } catch (IllegalStateException e) {
                // gone with the bundle already
            }
        }
        registrations.clear();
    }

    /** Whether this bundle's class space has {@code className} (an optional import that is wired). */
    private static boolean loadable(String className) {
        try {
            Class.forName(className, false, StatusPlugins.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    static boolean jakartaWebConsoleInstalled(BundleContext context) {
        for (Bundle b : context.getBundles()) {
            if (FELIX_WEBCONSOLE.equals(b.getSymbolicName()) && b.getVersion().compareTo(JAKARTA_WEBCONSOLE) >= 0) {
                return true;
            }
        }
        return false;
    }
}
