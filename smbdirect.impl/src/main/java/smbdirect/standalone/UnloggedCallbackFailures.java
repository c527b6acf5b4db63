package smbdirect.standalone;

import java.io.PrintStream;
import java.util.Objects;
import java.util.function.Consumer;

import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * What a {@link StandaloneTransport} built without {@link StandaloneTransport.Builder#callbackFailures}
 * does with a callback of the upper layer that threw when SLF4J has no binding: the transport's log
 * line would go nowhere, so the failure is printed, with its stack trace, on standard error, once.
 * With a binding the log line (ERROR, with the stack trace) is the report and this prints nothing.
 */
final class UnloggedCallbackFailures implements Consumer<CallbackFailure> {

    /** The factory SLF4J 1.7 and 2.x fall back to when no binding (provider) is on the class path. */
    private static final String NO_BINDING = "org.slf4j.helpers.NOPLoggerFactory";

    private final PrintStream out;

    UnloggedCallbackFailures(PrintStream out) {
        this.out = Objects.requireNonNull(out, "out");
    }

    /** Whether SLF4J discards every log line: it found no binding. */
    static boolean noLoggingBinding(ILoggerFactory factory) {
        return factory.getClass().getName().equals(NO_BINDING);
    }

    /** The default report: this printer on {@code System.err} without an SLF4J binding, else null (the log). */
    static Consumer<CallbackFailure> forThisClassPath() {
        return noLoggingBinding(LoggerFactory.getILoggerFactory()) ? new UnloggedCallbackFailures(System.err) : null;
    }

    @Override
    public void accept(CallbackFailure f) {
        synchronized (out) {
            out.println("smbdirect: " + f + (f.connectionId() != 0 ? "; the connection closed (HANDLER_FAILED)" : "")
                    + " [printed here because SLF4J has no binding; StandaloneTransport.Builder.callbackFailures"
                    + " takes these reports]");
            f.failure().printStackTrace(out);
            out.flush();
        }
    }
}
