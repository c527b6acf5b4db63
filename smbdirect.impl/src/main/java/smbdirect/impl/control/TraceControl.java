package smbdirect.impl.control;

import smbdirect.impl.trace.TraceSink;

/**
 * Bundle-internal service of the transport component through which an operator traces every SMB
 * Direct message of every connection on every provider (Gogo {@code smbd:trace}). Thread-safe.
 */
public interface TraceControl {

    /**
     * Installs {@code sink} on every engine, present and future; {@link TraceSink#NONE} (or
     * {@code null}) turns tracing off.
     */
    void setTraceSink(TraceSink sink);
}
