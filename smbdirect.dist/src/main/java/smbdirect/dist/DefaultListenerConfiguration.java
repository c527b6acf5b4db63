package smbdirect.dist;

import java.io.IOException;
import java.util.Dictionary;
import java.util.Hashtable;

import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the runtime's default listener configuration (factory PID {@code smbdirect.listener},
 * name {@code default}) when there is no listener configuration at all, so a fresh runtime
 * accepts connections on the mock fabric with the perf handler. A configuration that exists is
 * never touched: edit or delete it in the Web Console like any other.
 *
 * <p>Framework properties: {@code smbdirect.defaultListener} ({@code false} disables this),
 * {@code smbdirect.defaultListener.address} (default 10.0.0.1, the embedded mock device) and
 * {@code smbdirect.defaultListener.port} (default 445).
 */
@Component(immediate = true)
public class DefaultListenerConfiguration {

    static final String LISTENER_FACTORY_PID = "smbdirect.listener";
    static final String DEFAULT_NAME = "default";
    static final String ENABLED = "smbdirect.defaultListener";
    static final String ADDRESS = "smbdirect.defaultListener.address";
    static final String PORT = "smbdirect.defaultListener.port";

    private static final Logger LOG = LoggerFactory.getLogger(DefaultListenerConfiguration.class);

    @Reference
    private ConfigurationAdmin configurationAdmin;

    @Activate
    void activate(BundleContext context) throws IOException, InvalidSyntaxException {
        if ("false".equalsIgnoreCase(context.getProperty(ENABLED))) {
            LOG.info("default listener disabled by {}=false", ENABLED);
            return;
        }
        Configuration[] existing = configurationAdmin.listConfigurations(
                "(service.factoryPid=" + LISTENER_FACTORY_PID + ")");
        if (existing != null && existing.length > 0) {
            LOG.debug("{} listener configuration(s) exist, no default created", existing.length);
            return;
        }
        String address = property(context, ADDRESS, "10.0.0.1");
        int port = Integer.parseInt(property(context, PORT, "445"));
        Configuration configuration = configurationAdmin.getFactoryConfiguration(LISTENER_FACTORY_PID, DEFAULT_NAME, "?");
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("name", DEFAULT_NAME);
        properties.put("bindAddress", address);
        properties.put("port", port);
        properties.put("acceptHandler.target",
                "(" + PerfAcceptHandler.NAME_PROPERTY + "=" + PerfAcceptHandler.NAME + ")");
        configuration.update(properties);
        LOG.info("created the default listener configuration {} ({}:{}, perf accept handler)",
                configuration.getPid(), address, port);
    }

    private static String property(BundleContext context, String key, String fallback) {
        String value = context.getProperty(key);
        return value == null || value.isBlank() ? fallback : value.trim();
    }
}
