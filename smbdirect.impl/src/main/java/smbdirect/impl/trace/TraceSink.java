package smbdirect.impl.trace;

import java.nio.ByteBuffer;

/**
 * Receives a copy of every SMB Direct message sent or received, for a Wireshark trace.
 *
 * <p>The engine keeps the sink in a volatile field that is {@link #NONE} while tracing is off,
 * so the cost then is one volatile read and one comparison:
 *
 * <pre>
 * TraceSink t = trace;              // volatile
 * if (t != TraceSink.NONE) {
 *     t.record(role == ACTIVE ? sent : !sent, message, epochMicros);
 * }
 * </pre>
 *
 * <p>Buffer ownership: {@link #record} reads the bytes between the buffer's position and limit
 * during the call only; it changes neither position nor limit and keeps no reference, so the
 * caller may reuse the buffer as soon as the call returns. Implementations are thread-safe and
 * never throw for I/O problems (a trace must not break a connection).
 */
public interface TraceSink {

    /** The sink used while tracing is off: records nothing, {@link #enabled()} is false. */
    TraceSink NONE = NoTrace.INSTANCE;

    /**
     * Records one SMB Direct message (exactly one RDMA Send).
     *
     * @param fromInitiator true when the message travels from the connection's initiator (the
     *        active side, "client") to the passive side
     * @param message the message bytes from position to limit; not modified
     * @param timestampMicros the time of the message in microseconds since the Unix epoch
     */
    void record(boolean fromInitiator, ByteBuffer message, long timestampMicros);

    /** False only for {@link #NONE}. */
    default boolean enabled() {
        return true;
    }
}
