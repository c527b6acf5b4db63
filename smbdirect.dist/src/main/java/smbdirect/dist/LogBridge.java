package smbdirect.dist;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogLevel;
import org.osgi.service.log.LogListener;
import org.osgi.service.log.LogReaderService;
import org.osgi.util.tracker.ServiceTracker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.dist.etc.ConfigurationFileFailure;

/**
 * Forwards entries of the OSGi Log Service to SLF4J, so that what Felix FileInstall, SCR and other
 * bundles that log through the OSGi Log Service report reaches the runtime's log: errors and
 * warnings of every bundle. One line per entry, under the logger of the bundle's symbolic name; an
 * exception is summarised on that line (its stack trace at DEBUG). When FileInstall cannot read a
 * file under {@code etc/}, the line names the file, the line, the attribute and the value
 * ({@link ConfigurationFileFailure}).
 *
 * <p>Thread-safe: the Log Service delivers entries on its own thread.
 */
public final class LogBridge implements LogListener, AutoCloseable {

    static final String FILEINSTALL = "org.apache.felix.fileinstall";

    private final ServiceTracker<LogReaderService, LogReaderService> readers;
    private final Bundle framework;

    private LogBridge(BundleContext context) {
        framework = context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION);
        readers = new ServiceTracker<>(context, LogReaderService.class, null) {
            @Override
            public LogReaderService addingService(org.osgi.framework.ServiceReference<LogReaderService> ref) {
                LogReaderService reader = super.addingService(ref);
                if (reader != null) {
                    reader.addLogListener(LogBridge.this);
                }
                return reader;
            }

            @Override
            public void removedService(org.osgi.framework.ServiceReference<LogReaderService> ref,
                    LogReaderService reader) {
                reader.removeLogListener(LogBridge.this);
                super.removedService(ref, reader);
            }
        };
    }

    /** Starts forwarding (from every Log Reader Service, now and later). */
    public static LogBridge open(BundleContext context) {
        LogBridge bridge = new LogBridge(context);
        bridge.readers.open();
        return bridge;
    }

    @Override
    public void logged(LogEntry entry) {
        String loggerName = entry.getLoggerName();
        if (loggerName != null && loggerName.startsWith("Events.")) {
            return; // the framework's bundle, service and framework events, logged on behalf of every bundle
        }
        String source = entry.getBundle() == null ? "osgi" : String.valueOf(entry.getBundle().getSymbolicName());
        LogLevel level = entry.getLogLevel();
        if (level != LogLevel.ERROR && level != LogLevel.WARN && level != LogLevel.AUDIT) {
            return;
        }
        if (level != LogLevel.ERROR && framework != null && framework.getState() == Bundle.STOPPING) {
            return; // warnings of bundles torn down while the runtime stops (EventAdmin: "interrupted")
        }
        Logger log = LoggerFactory.getLogger(source);
        String text = FILEINSTALL.equals(source) ? ConfigurationFileFailure.explain(entry.getMessage()).orElse(line(entry))
                : line(entry);
        switch (level) {
            case ERROR -> log.error(text);
            case WARN -> log.warn(text);
            default -> log.info(text);
        }
        if (entry.getException() != null && log.isDebugEnabled()) {
            log.debug("the exception of the line above", entry.getException());
        }
    }

    static String line(LogEntry entry) {
        String message = String.valueOf(entry.getMessage());
        Throwable e = entry.getException();
        if (e == null) {
            return message;
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String why = root.getMessage() == null ? root.getClass().getName() : root.getMessage();
        return message.contains(why) ? message : message + ": " + why;
    }

    @Override
    public void close() {
        readers.close();
    }
}
