package smbdirect.impl.trace;

import java.nio.ByteBuffer;

/** {@link TraceSink#NONE}: tracing off. Stateless and thread-safe. */
final class NoTrace implements TraceSink {

    static final NoTrace INSTANCE = new NoTrace();

    private NoTrace() {
    }

    @Override
    public void record(boolean fromInitiator, ByteBuffer message, long timestampMicros) {
        // tracing is off: the message is deliberately not recorded
    }

    @Override
    public boolean enabled() {
        return false;
    }

    @Override
    public String toString() {
        return "TraceSink.NONE";
    }
}
