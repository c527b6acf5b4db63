package smbdirect.dist;

import java.util.Hashtable;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/**
 * The shell's way out: {@code exit} (or {@code exit STATUS}) and {@code shutdown} stop the
 * runtime cleanly, the framework and every bundle in order, and the process ends with status 0
 * (or STATUS). Registered in the shell's own scope {@code gogo}, which the shell searches first,
 * so {@code exit} is this command rather than {@code System.exit(int)}, which the Gogo profile
 * adds as a command and which would end the JVM without stopping the framework.
 *
 * <p>Thread-safe: releases the {@link ShutdownSignal} the launcher's main thread waits on.
 */
public final class ShellExit {

    private final ShutdownSignal signal;

    private ShellExit(ShutdownSignal signal) {
        this.signal = signal;
    }

    static ServiceRegistration<?> register(BundleContext context, ShutdownSignal signal) {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put("osgi.command.scope", "gogo");
        properties.put("osgi.command.function", new String[] {"exit", "shutdown"});
        return context.registerService(Object.class, new ShellExit(signal), properties);
    }

    /** Stops the runtime; the process exits with status 0. */
    public String exit() {
        return exit(0);
    }

    /** Stops the runtime; the process exits with {@code status}. */
    public String exit(int status) {
        signal.release("exit typed in the shell", status);
        return "stopping the runtime";
    }

    /** Stops the runtime; the process exits with status 0. */
    public String shutdown() {
        signal.release("shutdown typed in the shell", 0);
        return "stopping the runtime";
    }
}
