package smbdirect.example.fileserver.internal.osgi;

import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

import smbdirect.api.SmbDirectTransport;

/**
 * The file server's component (configuration PID {@code smbdirect.example.fileserver}, required:
 * the bundle serves nothing and opens nothing until an operator creates the configuration, e.g.
 * {@code etc/smbdirect.example.fileserver.cfg} or the Web Console's form; deleting it closes the
 * server). It runs one {@link smbdirect.example.fileserver.FileServer} over the
 * {@link SmbDirectTransport} service that {@code transport.target} selects, on the provider that
 * {@code provider} names (or the selected one). A bad value is refused with an ERROR naming the
 * key, the value and the reason, and the running server keeps its last good settings; a good change
 * restarts the server (logged). A named provider that is not there yet is waited for (tried again
 * every {@value #RETRY_SECONDS} s; logged at WARN when it lasts). Thread-safety: SCR serialises
 * activate, modified and deactivate; {@link ServerLifecycle} is synchronized for the retries.
 */
@Component(name = ServerLifecycle.PID, configurationPid = ServerLifecycle.PID, service = {}, immediate = true,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = FileServerConfiguration.class)
public final class FileServerComponent {

    static final long RETRY_SECONDS = 1;

    private final ScheduledExecutorService retries;
    private final ServerLifecycle lifecycle;

    @Activate
    public FileServerComponent(@Reference(name = "transport") SmbDirectTransport transport,
            FileServerConfiguration config, Map<String, Object> properties) {
        retries = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "smbdirect-fileserver-retry");
            t.setDaemon(true);
            return t;
        });
        lifecycle = new ServerLifecycle(transport, ServerLifecycle.FILE_SERVER, task -> {
            try {
                retries.schedule(task, RETRY_SECONDS, TimeUnit.SECONDS);
            } catch (RejectedExecutionException stopped) {
                // deactivated meanwhile: nothing waits any more
            }
        });
        lifecycle.configure(config, properties);
    }

    @Modified
    void modified(FileServerConfiguration config, Map<String, Object> properties) {
        lifecycle.configure(config, properties);
    }

    @Deactivate
    void deactivate() {
        retries.shutdownNow();
        lifecycle.stop();
    }
}
